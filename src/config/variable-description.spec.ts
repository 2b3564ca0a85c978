import { IsIn, IsOptional, IsString } from 'class-validator';
import { Describe, describedVariables } from './variable-description.js';

class Sample {
  @Describe({ meaning: 'Described.', default: '`a`' })
  @IsOptional()
  @IsIn(['a', 'b'], { message: 'DESCRIBED must be a or b' })
  DESCRIBED?: string;

  @IsOptional()
  @IsIn(['x'], { message: 'ADDED_WITHOUT_DESCRIPTION must be x' })
  ADDED_WITHOUT_DESCRIPTION?: string;

  @Describe({ meaning: 'Free text.', default: 'unset', accepted: 'any text' })
  @IsOptional()
  @IsString()
  FREE?: string;
}

describe('describedVariables', () => {
  it('lists every validated variable in declaration order, with or without a description', () => {
    expect(describedVariables(Sample).map((variable) => variable.name)).toEqual(['DESCRIBED', 'ADDED_WITHOUT_DESCRIPTION', 'FREE']);
  });

  it('takes the accepted values from the validation message, unless the description gives them', () => {
    const [described, added, free] = describedVariables(Sample);
    expect(described).toEqual({ name: 'DESCRIBED', description: { meaning: 'Described.', default: '`a`' }, accepted: 'a or b' });
    expect(added).toEqual({ name: 'ADDED_WITHOUT_DESCRIPTION', description: undefined, accepted: 'x' });
    expect(free?.accepted).toBe('any text');
  });
});
