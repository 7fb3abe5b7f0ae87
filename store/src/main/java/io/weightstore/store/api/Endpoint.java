package io.weightstore.store.api;

/** Where a node serves its data plane. Port 0 marks a pool in the master's own process (the embedded store). */
public record Endpoint(String host, int port) {
    public Endpoint {
        if (host == null || host.isBlank() || port < 0 || port > 65_535) {
            throw new IllegalArgumentException("an endpoint needs a host and a port in 0..65535: host=" + host + " port=" + port);
        }
    }

    public static Endpoint inProcess() {
        return new Endpoint("localhost", 0);
    }

    public boolean isInProcess() {
        return port == 0;
    }

    @Override
    public String toString() {
        return isInProcess() ? "in-process" : host + ":" + port;
    }
}
