import fc from 'fast-check';

// CI runs the property tests on one seed, so that its verdict can be reproduced; elsewhere every run explores anew.
if (process.env.CI) fc.configureGlobal({ seed: 20_261_126 });
