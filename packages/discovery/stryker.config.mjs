// Mutation testing: `npm run mutation -- discovery` (docs/mutation.md).
import { mutationConfig, NOT_MUTATED } from '../../stryker.shared.mjs';

export default mutationConfig({
  mutate: [
    'src/dns/resolve.ts',
    ...NOT_MUTATED,
  ],
});
