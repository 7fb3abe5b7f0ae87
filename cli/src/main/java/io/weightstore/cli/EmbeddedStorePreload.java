package io.weightstore.cli;

import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.StoreLocator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether this process will open the embedded store, told from its arguments and environment before
 * picocli parses them: then its native libraries load on a thread of their own while the command line
 * is built (0.3-0.4 s of one core in a fresh JVM on a 2-core VM), see
 * {@link EmbeddedStore#startLoadingNativeLibraries}. A wrong guess costs a core that was idle, never
 * an answer: a command that names a cluster or a configuration file (which may name one) is not
 * guessed at.
 */
final class EmbeddedStorePreload {
    /** The verbs whose work opens the selected store. */
    private static final Set<String> VERBS = Set.of("quickstart", "model", "load", "generate", "serve", "store");
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
        return args.stream().noneMatch(arg -> namesAnotherStore(arg) || arg.equals("--help") || arg.equals("-h"));
    }

    private static boolean namesAnotherStore(String arg) {
        return NAMING_ANOTHER_STORE.stream().anyMatch(flag -> arg.equals(flag) || arg.startsWith(flag + "="));
    }

    private static boolean isSet(Map<String, String> env, String name) {
        String value = env.get(name);
        return value != null && !value.isBlank();
    }
}
