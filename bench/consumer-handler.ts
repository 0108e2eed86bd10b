// Another team's Lambda that uses the package for one thing, adding subscribers, and imports
// only `add_subscriber`. Bundled as a consumer would, with plain esbuild (REFERENCE_BUNDLING),
// from the sources the package is built from (test/package/ proves the packed tarball bundles
// the same way).
import { add_subscriber } from '../shared/index.ts';

export const handler = async (event: { email: string; name?: string }) => add_subscriber(event);
