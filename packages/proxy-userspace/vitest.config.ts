import { packageTestConfig } from '../../vitest.shared.ts';

export default packageTestConfig(new URL('.', import.meta.url));
