package io.weightstore.gateway;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.weightstore.store.api.MasterSilence;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store's master answers the gateway's reads: the gateway's readiness. The start asks once and the gateway does
 * not listen without an answer; after that it asks every interval, since an idle gateway makes no calls whose outcome
 * would tell, and a busy one answers listings and version checks from what it learned up to a second before. The gateway
 * is ready while the master answered within {@link MasterSilence}'s bound, the rule a node is ready by; it counts from the
 * last answer, so a call the master's deadline holds up (a master frozen, packets dropped) does not hold the verdict up.
 */
public final class MasterProbe implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MasterProbe.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final StoreClient store;
    private final String key;
    private final MasterSilence silence;
    private final Thread thread;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    /** The ask in progress, if any; only the probe's thread starts one. */
    private volatile Thread asker;
    private volatile boolean closed;
    /** When the master last answered (System.nanoTime). */
    private volatile long lastAnswerNanos;
    /** Why the last ask got no answer, for {@code /ready} and the log; empty after an answer. */
    private volatile String lastFailure = "";

    private MasterProbe(StoreClient store, String key, MasterSilence silence, long answeredNanos) {
        this.store = store;
        this.key = key;
        this.silence = silence;
        this.lastAnswerNanos = answeredNanos;
        this.thread = Thread.ofPlatform().daemon().name("gateway-master-probe").unstarted(this::loop);
        // What /ready says, for an alert: as a node's weightstore_node_registered does.
        GaugeWithCallback.builder().name("weightstore_gateway_master_answering")
                .help("1 while the master answered the gateway within the bound it is ready by, else 0")
                .callback(cb -> cb.call(answering() ? 1 : 0)).register(registry);
    }

    /** The gauge of {@link #answering}, on a registry of its own. */
    public PrometheusRegistry registry() {
        return registry;
    }

    /**
     * Asks {@code store} for the object {@code key} now, then every {@code interval} until closed; an object that does not
     * exist is an answer. The store stays the caller's.
     *
     * @throws StoreException when the first ask gets no answer (no credentials for a master that runs with TLS, a role that
     *     may not read, no master there): the gateway would otherwise listen, say it is ready, and fail every request
     */
    public static MasterProbe start(StoreClient store, String key, Duration interval) throws StoreException {
        MasterSilence silence = new MasterSilence(interval);
        Optional<StoreException> failure = ask(store, key);
        if (failure.isPresent()) {
            StoreException e = failure.get();
            throw new StoreException(e.code(), "the gateway cannot read the store: " + e.getMessage(), e);
        }
        MasterProbe probe = new MasterProbe(store, key, silence, System.nanoTime());
        probe.thread.start();
        return probe;
    }

    /** True while the master answered within {@link MasterSilence#limit()}. */
    public boolean answering() {
        return silence.answered(lastAnswerNanos, System.nanoTime());
    }

    /** In a few words, for {@code /ready}: when the master last answered, and if that is too long ago, why it did not since. */
    public String state() {
        long silentMillis = (System.nanoTime() - lastAnswerNanos) / 1_000_000;
        return answering() ? "the master answered " + silentMillis + " ms ago"
                : "the master has not answered for " + silentMillis + " ms (ready within " + silence.limit().toMillis() + " ms): "
                        + (lastFailure.isEmpty() ? "an ask is waiting for its answer" : lastFailure);
    }

    private void loop() {
        boolean wasAnswering = true;
        while (!closed) {
            try {
                Thread.sleep(silence.interval());
            } catch (InterruptedException e) {
                return;
            }
            // An ask the master's deadline holds up must hold up neither the next verdict nor its log line: asks run apart,
            // one at a time, and a master that answers none gets no pile of them.
            if (asker == null || !asker.isAlive()) {
                asker = Thread.ofVirtual().name("gateway-master-ask").start(this::askOnce);
            }
            boolean answering = answering();
            // Once per change, as the master logs a node that goes down and comes back.
            if (answering != wasAnswering && !closed) {
                if (answering) {
                    log.info("the master answers again: the gateway is ready");
                } else {
                    log.warn("the gateway is not ready: {}", state());
                }
            }
            wasAnswering = answering;
        }
    }

    private void askOnce() {
        ask(store, key).ifPresentOrElse(e -> lastFailure = e.getMessage(), () -> {
            lastFailure = "";
            lastAnswerNanos = System.nanoTime();
        });
    }

    private static Optional<StoreException> ask(StoreClient store, String key) {
        try {
            store.stat(key);
        } catch (StoreException e) {
            if (e.code() != StoreException.Code.NOT_FOUND) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** Stops asking; an ask in progress is interrupted, which ends a call to a master that does not answer. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(CLOSE_WAIT);
            Thread last = asker;
            if (last != null) {
                last.interrupt();
                last.join(CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
