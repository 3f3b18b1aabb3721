// Services and EndpointSlices for the model's tests, as upstream's proxier tests make them:
// the testkit's builders, shared with the backends' tests.
export { makeService, makeSlice } from '@kubesvc/testkit';
