package io.weightstore.cli;

import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.loader.CheckpointSource;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether this process will open the embedded store, told from its arguments and environment before
 * picocli parses them: then its native libraries load on a thread of their own while the command line
 * is built (0.3-0.4 s of one core in a fresh JVM on a 2-core VM), see
 * {@link EmbeddedStore#startLoadingNativeLibraries}. A wrong guess costs CPU, never an answer, and
 * that CPU is not idle: while a fresh JVM starts a model, Jlama's thread and the JIT's keep both cores
 * of a 2-core VM busy, so a guess is made only when the store will be opened. A command that names a
 * cluster or a configuration file (which may name one) is not guessed at, and a model verb only
 * preloads for a {@code weightstore://} model, not for a local directory.
 */
final class EmbeddedStorePreload {
    /** The verbs whose work opens the selected store. */
    private static final Set<String> VERBS = Set.of("quickstart", "model", "load", "generate", "serve", "store");
    /** The verbs that open it only for a model named {@code weightstore://ID}, and run one from a directory otherwise. */
    private static final Set<String> MODEL_VERBS = Set.of("generate", "serve");
    private static final String MODEL = "--model";
    private static final List<String> NAMING_ANOTHER_STORE = List.of("--store", "--config");

    private EmbeddedStorePreload() {}

    static void startIfWanted(List<String> args) {
        if (wanted(args, System.getenv())) {
            EmbeddedStore.startLoadingNativeLibraries();
        }
    }

    static boolean wanted(List<String> args, Map<String, String> env) {
        if (args.isEmpty() || !VERBS.contains(args.getFirst()) || isSet(env, StoreLocator.MASTER_ENV)
                || isSet(env, StoreLocator.CONFIG_ENV)) {
            return false;
        }
        if (MODEL_VERBS.contains(args.getFirst()) && !namesAStoreModel(args)) {
            return false;
        }
        return args.stream().noneMatch(arg -> namesAnotherStore(arg) || arg.equals("--help") || arg.equals("-h"));
    }

    /** Whether {@code --model} is given a {@code weightstore://} reference, as its own argument or after '='. */
    private static boolean namesAStoreModel(List<String> args) {
        for (int i = 1; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.startsWith(MODEL + "=")) {
                return CheckpointSource.isStoreUri(arg.substring(MODEL.length() + 1));
            }
            if (arg.equals(MODEL) && i + 1 < args.size()) {
                return CheckpointSource.isStoreUri(args.get(i + 1));
            }
        }
        return false;
    }

    private static boolean namesAnotherStore(String arg) {
        return NAMING_ANOTHER_STORE.stream().anyMatch(flag -> arg.equals(flag) || arg.startsWith(flag + "="));
    }

    private static boolean isSet(Map<String, String> env, String name) {
        String value = env.get(name);
        return value != null && !value.isBlank();
    }
}
