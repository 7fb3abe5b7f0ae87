package io.weightstore.gateway;

import io.weightstore.gateway.sigv4.Credentials;
import java.util.List;

/**
 * Who may read: holders of these access keys, with requests signed by AWS Signature V4, and anyone
 * at all when {@code anonymous}. A signed request is verified even then, so a bad signature is never
 * served. All keys read as the gateway's own store identity (its store token), the one it opened the
 * store with.
 */
public record Access(List<Credentials> keys, boolean anonymous) {
    public Access {
        keys = List.copyOf(keys);
        if (keys.isEmpty() && !anonymous) {
            throw new IllegalArgumentException("the gateway needs an access key (--access-key and --secret-key, or $"
                    + GatewayConfig.ACCESS_KEY_ENV + " and $" + GatewayConfig.SECRET_KEY_ENV
                    + ") for clients to sign requests with, or --anonymous to let anyone who can reach it read every checkpoint");
        }
    }

    public static Access keys(Credentials... keys) {
        return new Access(List.of(keys), false);
    }

    public static Access anonymousOnly() {
        return new Access(List.of(), true);
    }
}
