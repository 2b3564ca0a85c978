import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';

/** What docs/reference/configuration.md says about one variable, kept beside its validation. */
export type VariableDescription = {
  meaning: string;
  /** The default, in Markdown (what an unset or empty variable means). */
  default: string;
  /** The accepted values, when the validation message does not say them. */
  accepted?: string;
};

export type DescribedVariable = { name: string; description?: VariableDescription; accepted: string };

const DESCRIPTION = Symbol('configuration-variable-description');

/** Documents a variable of the validated configuration class; changes nothing in the validation. */
export function Describe(description: VariableDescription): PropertyDecorator {
  return (target, property) => Reflect.defineMetadata(DESCRIPTION, description, target, property);
}

/**
 * Every variable the configuration class validates, in declaration order, read from
 * class-validator's own metadata: a variable added without a description is still listed.
 */
export function describedVariables(configurationClass: new () => object): DescribedVariable[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(configurationClass, '', true, false);
  const names = [...new Set(metadata.map((entry) => entry.propertyName))];
  return names.map((name) => {
    const description = Reflect.getMetadata(DESCRIPTION, configurationClass.prototype as object, name) as VariableDescription | undefined;
    const messages = metadata.filter((entry) => entry.propertyName === name).map((entry) => entry.message);
    const message = messages.find((candidate): candidate is string => typeof candidate === 'string');
    return { name, description, accepted: description?.accepted ?? acceptedFrom(name, message) ?? 'any value' };
  });
}

// The validation messages say "<NAME> must be <accepted values>": the reference reuses their words.
function acceptedFrom(name: string, message: string | undefined): string | undefined {
  const prefix = `${name} must be `;
  return message?.startsWith(prefix) ? message.slice(prefix.length) : undefined;
}
