package io.weightstore.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.weights.ManifestFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway against S3 clients no one here wrote, from Debian's packages: the AWS CLI, rclone,
 * and boto3 reading a safetensors header as a weight streamer does. They are installed by
 * {@code src/test/install-s3-clients.sh} when missing. Debian's {@code /usr/bin/aws} and
 * {@code /usr/bin/python3} are named outright: an {@code aws} or {@code python3} first on PATH may
 * be another installation (a pyenv shim, say) without these packages.
 */
class S3ClientsTest {
    private static final Path AWS = Path.of("/usr/bin/aws");
    private static final Path RCLONE = Path.of("/usr/bin/rclone");
    private static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final String INSTALLER = "src/test/install-s3-clients.sh";

    @TempDir
    static Path tmp;

    private static GatewayFixture fixture;
    private static ManifestFile largest;

    @BeforeAll
    static void start() throws Exception {
        installClients();
        fixture = GatewayFixture.start(tmp);
        largest = fixture.manifest.files().stream().max((a, b) -> Long.compare(a.size(), b.size())).orElseThrow();
        Files.writeString(tmp.resolve("aws-config"), """
                [default]
                region = us-east-1
                s3 =
                  addressing_style = path
                  multipart_threshold = 2MB
                  multipart_chunksize = 2MB
                """);
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static void installClients() throws Exception {
        boolean boto3 = Files.isExecutable(PYTHON) && ExternalCommand.run(tmp, Map.of(),
                List.of(PYTHON.toString(), "-c", "import boto3")).exitCode() == 0;
        if (Files.isExecutable(AWS) && Files.isExecutable(RCLONE) && boto3) {
            return;
        }
        ExternalCommand install = ExternalCommand.run(tmp, Map.of(), List.of("bash", Path.of(INSTALLER).toAbsolutePath().toString()));
        if (install.exitCode() != 0) {
            throw new AssertionError("these tests need Debian's awscli, rclone and python3-boto3, and " + INSTALLER + " could not"
                    + " install them (it needs root or password-less sudo, and the Debian mirrors); run it by hand to see why:\n"
                    + install);
        }
    }

    /** The environment of a client that holds the gateway's key: its own HOME and config, nothing from the user's. */
    private static Map<String, String> env(String secret) {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", tmp.toString());
        env.put("AWS_CONFIG_FILE", tmp.resolve("aws-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
        env.put("AWS_ACCESS_KEY_ID", GatewayFixture.ACCESS_KEY);
        env.put("AWS_SECRET_ACCESS_KEY", secret);
        env.put("AWS_EC2_METADATA_DISABLED", "true");
        env.put("AWS_PAGER", "");
        return env;
    }

    private static ExternalCommand aws(String... args) throws Exception {
        return awsWith(GatewayFixture.SECRET_KEY, args);
    }

    private static ExternalCommand awsWith(String secret, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(AWS.toString(), "--endpoint-url", fixture.endpoint()));
        command.addAll(List.of(args));
        return ExternalCommand.run(tmp, env(secret), command);
    }

    private static void assertSameFiles(Path downloaded) throws IOException {
        for (ManifestFile file : fixture.manifest.files()) {
            Path copy = downloaded.resolve(file.path());
            assertThat(copy).as(file.path()).exists();
            assertThat(Files.mismatch(copy, fixture.local(file.path()))).as(file.path()).isEqualTo(-1);
        }
        try (Stream<Path> all = Files.walk(downloaded)) {
            assertThat(all.filter(Files::isRegularFile).count()).isEqualTo(fixture.manifest.files().size());
        }
    }

    @Test
    void awsListsTheBucketAndACheckpoint() throws Exception {
        ExternalCommand roots = aws("s3", "ls", "s3://weights/");
        assertThat(roots.exitCode()).as(roots.toString()).isZero();
        assertThat(roots.out()).contains("PRE " + GatewayFixture.CHECKPOINT + "/")
                .doesNotContain(GatewayFixture.HIDDEN);
        ExternalCommand files = aws("s3", "ls", "--recursive", "s3://weights/" + GatewayFixture.CHECKPOINT + "/");
        assertThat(files.exitCode()).as(files.toString()).isZero();
        for (ManifestFile file : fixture.manifest.files()) {
            assertThat(files.out()).contains(file.size() + " " + GatewayFixture.CHECKPOINT + "/" + file.path());
        }
    }

    @Test
    void awsCopiesOneFileAndAWholeCheckpoint() throws Exception {
        Path one = tmp.resolve("aws-one.bin");
        ExternalCommand cp = aws("s3", "cp", "s3://weights/" + GatewayFixture.CHECKPOINT + "/" + largest.path(), one.toString());
        assertThat(cp.exitCode()).as(cp.toString()).isZero();
        assertThat(Files.mismatch(one, fixture.local(largest.path()))).isEqualTo(-1);

        Path all = tmp.resolve("aws-recursive");
        ExternalCommand recursive = aws("s3", "cp", "--recursive", "s3://weights/" + GatewayFixture.CHECKPOINT + "/", all.toString());
        assertThat(recursive.exitCode()).as(recursive.toString()).isZero();
        assertSameFiles(all);
    }

    @Test
    void awsGetsARangeAndReportsABadSignature() throws Exception {
        Path range = tmp.resolve("aws-range.bin");
        String key = GatewayFixture.CHECKPOINT + "/" + largest.path();
        ExternalCommand get = aws("s3api", "get-object", "--bucket", "weights", "--key", key, "--range", "bytes=8-1031", range.toString());
        assertThat(get.exitCode()).as(get.toString()).isZero();
        assertThat(get.out()).contains("\"ContentRange\": \"bytes 8-1031/" + largest.size() + "\"", "\"ContentLength\": 1024");
        byte[] local = Files.readAllBytes(fixture.local(largest.path()));
        assertThat(Files.readAllBytes(range)).isEqualTo(Arrays.copyOfRange(local, 8, 1032));

        // The other errors are checked, status and code, by boto3 below and over HTTP in GatewayHttpTest.
        assertThat(awsWith("not-the-secret", "s3", "ls", "s3://weights/").err()).contains("SignatureDoesNotMatch");
    }

    @Test
    void rcloneListsAndCopies() throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("HOME", tmp.toString(), "RCLONE_CONFIG", tmp.resolve("rclone.conf").toString(),
                "RCLONE_CONFIG_GW_TYPE", "s3", "RCLONE_CONFIG_GW_PROVIDER", "Other", "RCLONE_CONFIG_GW_ENDPOINT", fixture.endpoint(),
                "RCLONE_CONFIG_GW_ACCESS_KEY_ID", GatewayFixture.ACCESS_KEY, "RCLONE_CONFIG_GW_SECRET_ACCESS_KEY",
                GatewayFixture.SECRET_KEY));
        Files.writeString(tmp.resolve("rclone.conf"), "");
        ExternalCommand list = ExternalCommand.run(tmp, env, List.of(RCLONE.toString(), "lsf", "-R", "--files-only",
                "gw:weights/" + GatewayFixture.CHECKPOINT));
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(list.out().lines().sorted().toList())
                .containsExactlyElementsOf(fixture.manifest.files().stream().map(ManifestFile::path).sorted().toList());

        Path copy = tmp.resolve("rclone-copy");
        // Files above 1 MiB come in four ranged streams at once, as rclone fetches large files.
        ExternalCommand cp = ExternalCommand.run(tmp, env, List.of(RCLONE.toString(), "copy", "--multi-thread-cutoff", "1M",
                "--multi-thread-streams", "4", "gw:weights/" + GatewayFixture.CHECKPOINT, copy.toString()));
        assertThat(cp.exitCode()).as(cp.toString()).isZero();
        assertSameFiles(copy);
    }

    @Test
    void boto3ReadsASafetensorsHeaderAsAStreamerDoes() throws Exception {
        ManifestFile shard = fixture.manifest.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
        ExternalCommand script = ExternalCommand.run(tmp, env(GatewayFixture.SECRET_KEY), List.of(PYTHON.toString(),
                Path.of("src/test/python/boto3_streamer.py").toAbsolutePath().toString(), fixture.endpoint(), "weights",
                GatewayFixture.CHECKPOINT + "/" + shard.path(), fixture.local(shard.path()).toString()));
        assertThat(script.exitCode()).as(script.toString()).isZero();
        assertThat(script.out()).contains("OK header of " + shard.headerLength() + " bytes", "OK presigned URL", "OK part 1 is the whole file",
                "OK error 404 NoSuchKey", "OK error 404 NoSuchBucket", "OK error 416 InvalidRange", "OK error 416 InvalidPartNumber", "OK error 403 SignatureDoesNotMatch");
    }
}
