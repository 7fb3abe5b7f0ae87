package io.weightstore.gateway.sigv4;

import java.util.regex.Pattern;

/**
 * The {@code Credential} of a signature: {@code ACCESS-KEY-ID/yyyyMMdd/region/service/aws4_request}.
 * The scope proper (all but the id) is part of the string to sign.
 */
public record CredentialScope(String accessKeyId, String date, String region, String service) {
    static final String TERMINATOR = "aws4_request";
    private static final Pattern DATE = Pattern.compile("\\d{8}");

    /**
     * @throws IllegalArgumentException saying which part of {@code credential} is wrong
     */
    static CredentialScope parse(String credential) {
        String[] parts = credential.split("/", -1);
        if (parts.length != 5) {
            throw new IllegalArgumentException("credential '" + credential + "' must be ACCESS-KEY-ID/yyyyMMdd/REGION/s3/aws4_request");
        }
        if (parts[0].isEmpty()) {
            throw new IllegalArgumentException("credential '" + credential + "' has no access key id");
        }
        if (!DATE.matcher(parts[1]).matches()) {
            throw new IllegalArgumentException("credential '" + credential + "' has date '" + parts[1] + "', expected yyyyMMdd");
        }
        if (parts[2].isEmpty()) {
            throw new IllegalArgumentException("credential '" + credential + "' has no region");
        }
        if (!parts[3].equals("s3")) {
            throw new IllegalArgumentException("credential '" + credential + "' is for service '" + parts[3] + "', this is s3");
        }
        if (!parts[4].equals(TERMINATOR)) {
            throw new IllegalArgumentException("credential '" + credential + "' must end in /" + TERMINATOR);
        }
        return new CredentialScope(parts[0], parts[1], parts[2], parts[3]);
    }

    /** The scope as the string to sign has it: {@code date/region/service/aws4_request}. */
    String scope() {
        return date + "/" + region + "/" + service + "/" + TERMINATOR;
    }
}
