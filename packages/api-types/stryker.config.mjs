// Mutation testing: `npm run mutation -- api-types` (docs/mutation.md).
import { mutationConfig, NOT_MUTATED } from '../../stryker.shared.mjs';

export default mutationConfig({
  mutate: [
    'src/allocator/**/*.ts',
    'src/net/**/*.ts',
    ...NOT_MUTATED,
  ],
});
