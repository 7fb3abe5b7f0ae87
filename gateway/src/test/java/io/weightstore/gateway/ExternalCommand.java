package io.weightstore.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A program other people wrote, run to completion with the environment the test gives it and nothing of the test's own AWS settings. */
record ExternalCommand(int exitCode, String out, String err) {
    static ExternalCommand run(Path workDir, Map<String, String> environment, List<String> command) throws IOException,
            InterruptedException {
        Path out = Files.createTempFile(workDir, "out-", ".txt");
        Path err = Files.createTempFile(workDir, "err-", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("AWS_") || name.startsWith("RCLONE_"));
        builder.environment().putAll(environment);
        try {
            Process process = builder.start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish in 120 s");
            }
            return new ExternalCommand(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.delete(out);
            Files.delete(err);
        }
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
}
