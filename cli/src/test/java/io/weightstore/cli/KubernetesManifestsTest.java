package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.weightstore.weights.ByteSizes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes manifests under deploy/k8s hold together and run what the code has: every
 * weightstore container's arguments parse with the real commands' flags, its declared ports are
 * the ones those flags make it listen on, its probes hit the operations port's /health and /ready,
 * its paths sit on the volumes they need, and the addresses it is given name Services, pods and
 * ports that the manifests define.
 */
class KubernetesManifestsTest {
    private static final Path DIR = Path.of("../deploy/k8s");
    private static final Pattern POD_ADDRESS = Pattern.compile("(?:https?://)?([a-z0-9-]+)-(\\d+)\\.([a-z0-9-]+):(\\d+)");
    private static final Pattern K8S_VARIABLE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    private static List<JsonNode> objects;

    @BeforeAll
    static void load() throws IOException {
        objects = new ArrayList<>();
        YAMLMapper yaml = new YAMLMapper();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                try (MappingIterator<JsonNode> documents = yaml.readerFor(JsonNode.class).readValues(file.toFile())) {
                    documents.readAll().stream().filter(doc -> doc != null && !doc.isEmpty()).forEach(objects::add);
                }
            }
        }
    }

    @Test
    void kustomizationListsEveryManifest() throws IOException {
        JsonNode kustomization = only("Kustomization", null);
        Set<String> listed = new TreeSet<>();
        kustomization.get("resources").forEach(r -> listed.add(r.asText()));
        Set<String> present = new TreeSet<>();
        try (Stream<Path> files = Files.list(DIR)) {
            files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml"))
                    .forEach(present::add);
        }
        assertThat(listed).isEqualTo(present);
    }

    @Test
    void theRolesRunAsTheIssueAsks() {
        assertThat(command(only("StatefulSet", "weightstore-master")).verb()).containsExactly("master");
        assertThat(command(only("DaemonSet", "weightstore-node")).verb()).containsExactly("node");
        assertThat(command(only("Deployment", "weightstore-gateway")).verb()).containsExactly("gateway");
        assertThat(only("StatefulSet", "etcd").at("/spec/replicas").asInt()).isEqualTo(3);
        assertThat(command(only("StatefulSet", "weightstore-master")).text("--etcd")).contains("etcd-0.etcd:2379");
    }

    @Test
    void everyContainerListensOnThePortsItDeclaresAndServesItsProbes() {
        for (JsonNode workload : workloads()) {
            JsonNode container = weightstoreContainer(workload);
            CommandFlags flags = CommandFlags.parse(args(container));
            String where = name(workload);
            Map<String, Integer> declared = new HashMap<>();
            container.get("ports").forEach(p -> declared.put(p.get("name").asText(), p.get("containerPort").asInt()));

            Set<Integer> listening = new TreeSet<>();
            listening.add(flags.port("--port"));
            Integer metrics = flags.port("--metrics-port");
            assertThat(metrics).as("%s serves metrics, /health and /ready", where).isNotNull();
            listening.add(metrics);
            assertThat(new TreeSet<>(declared.values())).as("ports of %s", where).isEqualTo(listening);
            assertThat(flags.text("--metrics-bind")).as("%s: probes and scrapers come from outside the pod", where)
                    .isEqualTo("0.0.0.0");
            if (flags.given("--bind")) {
                assertThat(flags.text("--bind")).as("%s --bind", where).isEqualTo("0.0.0.0");
            }

            assertThat(container.at("/livenessProbe/httpGet/path").asText()).as("%s liveness", where).isEqualTo("/health");
            assertThat(declared.get(container.at("/livenessProbe/httpGet/port").asText())).isEqualTo(metrics);
            if (container.has("readinessProbe")) {
                assertThat(container.at("/readinessProbe/httpGet/path").asText()).as("%s readiness", where).isEqualTo("/ready");
                assertThat(declared.get(container.at("/readinessProbe/httpGet/port").asText())).isEqualTo(metrics);
            }
        }
    }

    @Test
    void argumentsUseOnlyVariablesTheContainerDefines() {
        for (JsonNode workload : workloads()) {
            JsonNode container = weightstoreContainer(workload);
            Set<String> env = new TreeSet<>();
            container.path("env").forEach(e -> env.add(e.get("name").asText()));
            for (String arg : args(container)) {
                Matcher m = K8S_VARIABLE.matcher(arg);
                while (m.find()) {
                    assertThat(env).as("%s: %s", name(workload), arg).contains(m.group(1));
                }
            }
        }
    }

    @Test
    void pathsLieOnTheVolumesTheyNeed() {
        for (JsonNode workload : workloads()) {
            JsonNode container = weightstoreContainer(workload);
            CommandFlags flags = CommandFlags.parse(args(container));
            JsonNode credentials = volumeHolding(workload, container, flags.text("--credentials"));
            if (credentials.has("secret")) {
                // The credentials loader refuses a key that group or others may read.
                assertThat(credentials.at("/secret/defaultMode").asInt()).as("%s credentials mode", name(workload)).isEqualTo(0400);
            } else {
                assertThat(credentials.at("/hostPath/type").asText()).isEqualTo("Directory");
            }
            volumeHolding(workload, container, "/tmp/x");
            assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
            assertThat(container.at("/securityContext/capabilities/drop")).extracting(JsonNode::asText).containsExactly("ALL");
        }
        CommandFlags master = command(only("StatefulSet", "weightstore-master"));
        volumeHolding(only("StatefulSet", "weightstore-master"), weightstoreContainer(only("StatefulSet", "weightstore-master")),
                master.text("--tokens"));
    }

    @Test
    void nodesKeepTheirPoolInMemoryWithRoomForIt() {
        JsonNode daemonSet = only("DaemonSet", "weightstore-node");
        JsonNode container = weightstoreContainer(daemonSet);
        CommandFlags flags = CommandFlags.parse(args(container));
        JsonNode pool = volumeHolding(daemonSet, container, flags.text("--pool"));
        assertThat(pool.at("/emptyDir/medium").asText()).isEqualTo("Memory");
        long capacity = ByteSizes.parse(flags.text("--capacity"));
        long sizeLimit = quantity(pool.at("/emptyDir/sizeLimit").asText());
        long memoryLimit = quantity(container.at("/resources/limits/memory").asText());
        assertThat(sizeLimit).as("the tmpfs holds the pool").isGreaterThanOrEqualTo(capacity);
        assertThat(memoryLimit).as("a memory-backed volume counts against the pod's memory").isGreaterThan(sizeLimit);
        assertThat(flags.text("--advertise")).isEqualTo("$(HOST_IP)");
        assertThat(daemonSet.at("/spec/template/spec/hostNetwork").asBoolean()).isTrue();
    }

    @Test
    void addressesNameServicesPodsAndPortsThatExist() {
        JsonNode masters = only("StatefulSet", "weightstore-master");
        CommandFlags master = command(masters);
        int masterPort = master.port("--port");
        assertThat(master.text("--advertise")).isEqualTo("$(POD_NAME)." + masters.at("/spec/serviceName").asText() + ":" + masterPort);
        List<String> masterAddresses = List.of(command(only("DaemonSet", "weightstore-node")).text("--master").split(","));
        assertThat(masterAddresses).hasSize(masters.at("/spec/replicas").asInt())
                .isEqualTo(List.of(command(only("Deployment", "weightstore-gateway")).text("--store").split(",")));
        for (String address : masterAddresses) {
            assertPodAddress(address, masterPort);
        }
        for (String member : master.text("--etcd").split(",")) {
            assertPodAddress(member, 2379);
        }
    }

    /** {@code NAME-i.SERVICE:PORT}: pod i of StatefulSet NAME, under its governing Service, on a port it declares. */
    private static void assertPodAddress(String address, int port) {
        Matcher m = POD_ADDRESS.matcher(address);
        assertThat(m.matches()).as("%s is a StatefulSet pod's address", address).isTrue();
        JsonNode set = only("StatefulSet", m.group(1));
        assertThat(set.at("/spec/serviceName").asText()).as(address).isEqualTo(m.group(3));
        assertThat(Integer.parseInt(m.group(2))).as(address).isLessThan(set.at("/spec/replicas").asInt());
        assertThat(Integer.parseInt(m.group(4))).as(address).isEqualTo(port);
        assertThat(set.at("/spec/template/spec/containers/0/ports").findValuesAsText("containerPort")).contains(String.valueOf(port));
        JsonNode service = only("Service", m.group(3));
        assertThat(service.at("/spec/clusterIP").asText()).as("%s: pods have names under a headless Service", address).isEqualTo("None");
    }

    @Test
    void servicesSelectPodsAndTargetTheirNamedPorts() {
        for (JsonNode service : all("Service")) {
            JsonNode selector = service.at("/spec/selector");
            List<JsonNode> pods = objects.stream().filter(o -> o.at("/spec/template/metadata/labels").isObject())
                    .filter(o -> matches(selector, o.at("/spec/template/metadata/labels"))).toList();
            assertThat(pods).as("pods of Service %s", name(service)).hasSize(1);
            JsonNode container = pods.getFirst().at("/spec/template/spec/containers/0");
            for (JsonNode port : service.at("/spec/ports")) {
                JsonNode target = null;
                for (JsonNode p : container.get("ports")) {
                    if (p.get("name").asText().equals(port.get("targetPort").asText())) {
                        target = p;
                    }
                }
                assertThat(target).as("Service %s targets port %s", name(service), port.get("targetPort")).isNotNull();
                assertThat(port.get("port").asInt()).isEqualTo(target.get("containerPort").asInt());
            }
        }
    }

    private static boolean matches(JsonNode selector, JsonNode labels) {
        for (Map.Entry<String, JsonNode> entry : selector.properties()) {
            if (!entry.getValue().asText().equals(labels.path(entry.getKey()).asText())) {
                return false;
            }
        }
        return true;
    }

    /** The volume whose mount holds {@code path}. */
    private static JsonNode volumeHolding(JsonNode workload, JsonNode container, String path) {
        assertThat(path).as("%s: a path flag", name(workload)).isNotNull();
        String volume = null;
        int longest = -1;
        for (JsonNode mount : container.get("volumeMounts")) {
            String at = mount.get("mountPath").asText();
            if ((path.equals(at) || path.startsWith(at + "/")) && at.length() > longest) {
                volume = mount.get("name").asText();
                longest = at.length();
            }
        }
        assertThat(volume).as("%s: a volume mounted over %s", name(workload), path).isNotNull();
        for (JsonNode v : workload.at("/spec/template/spec/volumes")) {
            if (v.get("name").asText().equals(volume)) {
                return v;
            }
        }
        throw new AssertionError(name(workload) + " mounts volume " + volume + ", which it does not define");
    }

    /** Kubernetes quantities: 17Gi, 512Mi, 2G, 1000. */
    private static long quantity(String text) {
        Matcher m = Pattern.compile("(\\d+)([KMGT]i?)?").matcher(text);
        assertThat(m.matches()).as("quantity %s", text).isTrue();
        long value = Long.parseLong(m.group(1));
        if (m.group(2) == null) {
            return value;
        }
        int power = "KMGT".indexOf(m.group(2).charAt(0)) + 1;
        long unit = m.group(2).endsWith("i") ? 1L << (10 * power) : (long) Math.pow(1000, power);
        return value * unit;
    }

    private static CommandFlags command(JsonNode workload) {
        return CommandFlags.parse(args(weightstoreContainer(workload)));
    }

    private static List<String> args(JsonNode container) {
        assertThat(container.has("command")).as("the image's entrypoint is the launcher; containers give only args").isFalse();
        List<String> args = new ArrayList<>();
        container.get("args").forEach(a -> args.add(a.asText()));
        return args;
    }

    private static JsonNode weightstoreContainer(JsonNode workload) {
        JsonNode containers = workload.at("/spec/template/spec/containers");
        assertThat(containers).hasSize(1);
        JsonNode container = containers.get(0);
        assertThat(container.get("image").asText()).isEqualTo("weightstore");
        return container;
    }

    private static List<JsonNode> workloads() {
        List<JsonNode> workloads = Stream.of("StatefulSet", "DaemonSet", "Deployment").flatMap(kind -> all(kind).stream())
                .filter(w -> w.at("/spec/template/spec/containers/0/image").asText().equals("weightstore")).toList();
        assertThat(workloads).hasSize(3);
        return workloads;
    }

    private static List<JsonNode> all(String kind) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
    }

    private static JsonNode only(String kind, String name) {
        List<JsonNode> found = all(kind).stream().filter(o -> name == null || name.equals(name(o))).toList();
        assertThat(found).as("%s %s", kind, name).hasSize(1);
        return found.getFirst();
    }

    private static String name(JsonNode object) {
        return object.at("/metadata/name").asText();
    }
}
