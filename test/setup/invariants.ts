/** Test set-up: every Simulation a test builds checks invariants after every instant unless told otherwise. */
import { setInvariantChecksByDefault } from '../../src/sim/invariants.js';

setInvariantChecksByDefault(true);
