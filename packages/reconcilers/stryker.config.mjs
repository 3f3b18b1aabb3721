// Mutation testing: `npm run mutation -- reconcilers` (docs/mutation.md).
import { mutationConfig, NOT_MUTATED } from '../../stryker.shared.mjs';

export default mutationConfig({
  mutate: [
    'src/**/*.ts',
    ...NOT_MUTATED,
  ],
});
