// Mutation testing: `npm run mutation -- proxy` (docs/mutation.md).
import { mutationConfig, NOT_MUTATED } from '../../stryker.shared.mjs';

export default mutationConfig({
  mutate: [
    'src/changes.ts',
    'src/trace/**/*.ts',
    ...NOT_MUTATED,
  ],
});
