import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { validateInput } from '../common/validate.js';

const NOT_DTOS: readonly unknown[] = [String, Number, Boolean, Object, Array];

/**
 * The global validation step: a `@Body()` or `@Query()` typed with a DTO class is checked
 * by `validateInput` (unknown fields refused, nothing coerced, every problem reported).
 * Parameters typed `unknown` pass through for services that must look something up first.
 * docs/decisions/0013-validation-decorator.md
 */
@Injectable()
export class InputValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const cls = metadata.metatype;
    if ((metadata.type !== 'body' && metadata.type !== 'query') || !cls || NOT_DTOS.includes(cls)) return value;
    return validateInput(cls as new () => object, value === undefined ? {} : value);
  }
}
