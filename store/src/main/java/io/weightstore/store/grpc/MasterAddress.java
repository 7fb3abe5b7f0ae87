package io.weightstore.store.grpc;

import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;

/** A master's HOST:PORT, checked before any connection is tried so a typo fails at once with what is wrong. */
record MasterAddress(String host, int port) {
    static MasterAddress parse(String address) throws StoreException {
        String text = address == null ? "" : address.strip();
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw invalid(address, "expected HOST:PORT");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw invalid(address, "port '" + text.substring(colon + 1) + "' is not a number");
        }
        if (port < 1 || port > 65_535) {
            throw invalid(address, "port " + port + " is outside 1..65535");
        }
        return new MasterAddress(host, port);
    }

    /** A comma-separated list of HOST:PORT, as {@code --store h1:7070,h2:7070} takes it; at least one, no repeats. */
    static List<MasterAddress> parseList(String addresses) throws StoreException {
        List<MasterAddress> parsed = new ArrayList<>();
        for (String one : (addresses == null ? "" : addresses).split(",", -1)) {
            MasterAddress address = parse(one);
            if (parsed.contains(address)) {
                throw invalid(addresses, address + " is listed twice");
            }
            parsed.add(address);
        }
        return List.copyOf(parsed);
    }

    private static StoreException invalid(String address, String why) {
        return new StoreException(StoreException.Code.INVALID_ARGUMENT, "master address '" + address + "': " + why);
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
