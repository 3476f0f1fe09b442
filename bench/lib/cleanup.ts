// The benches share the rehearsal's cleanup registry (@boxoffice/rehearsal).
export { cleanup, onCleanup, runBenchmark } from '@boxoffice/rehearsal';
