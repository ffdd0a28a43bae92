import { describe, expect, it } from '@jest/globals';
import { Expose, Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches } from 'class-validator';
import { ConfigError, loadEnv } from './env.js';

class Sample {
  @Expose()
  @Transform(({ value }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IsInt()
  PORT = 8080;

  @Expose() @IsOptional() @Matches(/^x+$/) TOKEN?: string;
}

describe('loadEnv', () => {
  it('keeps defaults for unset and empty variables and ignores unrelated ones', () => {
    const config = loadEnv(Sample, { PORT: '', UNRELATED: 'y' });
    expect(config.PORT).toBe(8080);
    expect(config.TOKEN).toBeUndefined();
    expect(Object.keys(config)).not.toContain('UNRELATED');
  });

  it('converts and validates set variables', () => {
    expect(loadEnv(Sample, { PORT: '9000', TOKEN: 'xxx' })).toMatchObject({ PORT: 9000, TOKEN: 'xxx' });
  });

  it('names every bad variable with its value', () => {
    let error: unknown;
    try {
      loadEnv(Sample, { PORT: '1e3', TOKEN: 'nope' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems.find((p) => p.startsWith('PORT'))).toContain('"1e3"');
    expect(problems.find((p) => p.startsWith('TOKEN'))).toContain('"nope"');
  });
});
