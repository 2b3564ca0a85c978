/** A text field's value in a submitted form, trimmed; '' when the form has no such field. */
export function fieldText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value.trim() : '';
}
