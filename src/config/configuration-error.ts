/** A configuration value that stops the process: the message is one line naming the variable. */
export class ConfigurationError extends Error {}
