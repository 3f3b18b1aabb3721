// Mutation testing: `npm run mutation -- proxy-iptables` (docs/mutation.md).
import { mutationConfig, NOT_MUTATED } from '../../stryker.shared.mjs';

export default mutationConfig({
  mutate: [
    'src/probability.ts',
    'src/save/probability.ts',
    'src/chain-names.ts',
    'src/trace/**/*.ts',
    ...NOT_MUTATED,
  ],
});
