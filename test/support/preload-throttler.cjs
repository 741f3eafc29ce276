// @nestjs/throttler 6 is CommonJS and require()s the ESM-only @nestjs/common 12. Node 24
// allows that, but Jest's ESM runtime fails ("Cannot require() ES Module ... in a cycle")
// unless the package is loaded once, here, before any test module imports it.
require('@nestjs/throttler');
