package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

class FlagWordingTest {
    @Command(name = "import")
    static final class Import {
        @Option(names = {"-p", "--parallel-files"})
        int parallelFiles = 2;
    }

    private static CommandSpec parsed(String... args) {
        CommandLine line = new CommandLine(new Import());
        line.parseArgs(args);
        return line.getCommandSpec();
    }

    @Test
    void aCheckOfAnOptionsFieldNamesTheFlagAndTheValueGiven() {
        assertThat(FlagWording.of(parsed("--parallel-files", "0"), "parallelFiles must be >= 1: parallelFiles=0"))
                .isEqualTo("--parallel-files must be >= 1, found 0");
    }

    @Test
    void aCheckOfAnotherValueOrFieldOrAnyOtherMessageIsLeftAsItIs() {
        CommandSpec command = parsed("--parallel-files", "0");
        // The flag holds 0: a check that failed on 5 was of something else of that name.
        for (String other : new String[] {"parallelFiles must be >= 1: parallelFiles=5", "sliceSize must be a power of 2: sliceSize=1000",
                "no such checkpoint: parallelFiles"}) {
            assertThat(FlagWording.of(command, other)).isEqualTo(other);
        }
    }
}
