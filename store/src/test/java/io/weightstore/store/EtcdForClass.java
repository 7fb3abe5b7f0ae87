package io.weightstore.store;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An etcd of its own for a test class, started before the class's tests and stopped after them: register it as a static
 * {@code @RegisterExtension} field. The class's tests share it, each under keys or a cluster name of its own.
 */
public final class EtcdForClass implements BeforeAllCallback, AfterAllCallback {
    private final int members;
    private EtcdCluster etcd;
    private Client client;

    public EtcdForClass(int members) {
        this.members = members;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        etcd = EtcdCluster.start(members);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (client != null) {
            client.close();
        }
        etcd.close();
    }

    public EtcdCluster cluster() {
        return etcd;
    }

    /** A client of the members, made on first use (a group of masters makes its own) and closed with them. */
    public synchronized Client client() {
        if (client == null) {
            client = Client.builder().endpoints(etcd.endpoints()).build();
        }
        return client;
    }
}
