import { HeraldError } from '../errors.ts';

/** A missing or invalid setting; the message is one line that names the variable. */
export class ConfigError extends HeraldError {
  readonly variable: string;

  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`, { code: 'config_invalid', kind: 'config' });
    this.variable = variable;
  }
}
