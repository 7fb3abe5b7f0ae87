package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A lock is taken over from a dead holder only when the holder was a process of this very host, boot and PID namespace. */
class LockOwnerTest {
    @Test
    void aLiveProcessIsNotDeadAndAFinishedOneOfThisHostIs() throws Exception {
        assertThat(LockOwner.current("import").isDeadLocalProcess()).isFalse();
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        assertThat(new LockOwner(LockOwner.localHost(), finished.pid(), "import", "n").isDeadLocalProcess()).isTrue();
    }

    @Test
    void aProcessOfAHostOfTheSameNameButAnotherBootOrPidNamespaceIsNeverTakenForDead() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        String local = LockOwner.localHost();
        assertThat(local).as("this host's name, boot and PID namespace").contains("~");
        String name = local.substring(0, local.indexOf('~'));
        String boot = local.substring(local.indexOf('~') + 1, local.lastIndexOf('.'));
        for (String elsewhere : new String[] {name, name + "~00000000.4026531836", name + "~" + boot + ".1"}) {
            assertThat(new LockOwner(elsewhere, finished.pid(), "import", "n").isDeadLocalProcess()).as(elsewhere).isFalse();
        }
        LockOwner owner = LockOwner.current("import");
        assertThat(LockOwner.parse(owner.toString())).contains(owner);
    }
}
