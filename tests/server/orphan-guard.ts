/**
 * Loaded into every server a test starts (`node --import` this file, see harness.ts), which is
 * given an IPC channel to the test: when the channel closes (the test process ended, however: a
 * failed test, a timed-out hook, a runner killed with SIGKILL) the server ends its whole process
 * group (it is the group's leader, so the bundler and anything else it started go with it). So
 * a failed test leaves no `serve.ts` behind.
 */
function endGroup() {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    // Not a group leader (started some other way): end this process alone.
    process.kill(process.pid, 'SIGKILL');
  }
}
process.once('disconnect', endGroup);
// The channel alone keeps nothing alive: the server exits as it would without this file.
process.channel?.unref();
