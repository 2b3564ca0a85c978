import { Fragment } from 'preact';

/**
 * Space-separated identifiers (scopes, grant types, names) in a table cell: the line may break
 * between them, never inside one (`blood-glucose-level:read` stays whole; the table scrolls).
 */
export function Words(props: { text: string; code?: boolean }) {
  const words = props.text.split(/\s+/).filter(Boolean);
  return (
    <>
      {words.map((word, index) => (
        <Fragment key={index}>
          {index > 0 && ' '}
          {props.code ? <code class="id">{word}</code> : <span class="id">{word}</span>}
        </Fragment>
      ))}
    </>
  );
}
