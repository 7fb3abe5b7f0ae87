package io.weightstore.gateway;

import io.weightstore.gateway.sigv4.Credentials;
import java.util.List;
import java.util.Map;

/**
 * Who may read: holders of the access keys, with requests signed by AWS Signature V4, and anyone at
 * all when anonymous reads are allowed. A signed request is verified even then, so a bad signature
 * is never served. Every key reads as the gateway's own store identity (the store token it opened
 * the store with). Secrets stay inside: {@link #toString()} names the key ids only.
 */
public final class Access {
    private final List<Credentials> keys;
    private final boolean anonymous;

    private Access(List<Credentials> keys, boolean anonymous) {
        if (keys.isEmpty() && !anonymous) {
            throw new IllegalArgumentException("the gateway needs an access key (--access-key and --secret-key, or $"
                    + GatewayConfig.ACCESS_KEY_ENV + " and $" + GatewayConfig.SECRET_KEY_ENV
                    + ") for clients to sign requests with, or --anonymous to let anyone who can reach it read every checkpoint");
        }
        this.keys = List.copyOf(keys);
        this.anonymous = anonymous;
    }

    /**
     * @param secretsByAccessKeyId each access key id with its secret key
     * @throws IllegalArgumentException for no key without anonymous reads, or a key id or secret that cannot be used
     */
    public static Access of(Map<String, String> secretsByAccessKeyId, boolean anonymous) {
        return new Access(secretsByAccessKeyId.entrySet().stream().map(e -> Credentials.of(e.getKey(), e.getValue())).toList(),
                anonymous);
    }

    /** Requests signed with this one key, and no others. */
    public static Access key(String accessKeyId, String secretKey) {
        return of(Map.of(accessKeyId, secretKey), false);
    }

    /** Anyone, unsigned; signed requests are refused, since no key is known. */
    public static Access anonymousOnly() {
        return new Access(List.of(), true);
    }

    public boolean anonymous() {
        return anonymous;
    }

    List<Credentials> keys() {
        return keys;
    }

    @Override
    public String toString() {
        return "Access[keys=" + keys.stream().map(Credentials::accessKeyId).toList() + ", anonymous=" + anonymous + "]";
    }
}
