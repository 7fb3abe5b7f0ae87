package io.weightstore.cli.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where this process's output goes, for lines redrawn in place, which only a terminal shows as meant. */
final class Terminal {
    private Terminal() {}

    /**
     * Whether stderr is a terminal. {@code System.console()} answers for stdin and stdout: it drew
     * into {@code 2>import.log} from a shell, and drew nothing under {@code --json | jq}, where stderr
     * is the terminal. Linux names what descriptor 2 is open on; elsewhere the console stands in.
     */
    static boolean stderr() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return System.console() != null;
        }
    }
}
