package io.weightstore.gateway.s3;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * A ListObjects request, version 1 ({@code marker}) or 2 ({@code list-type=2}: continuation token,
 * {@code start-after}), with its prefix, delimiter, page size and whether keys come URL-encoded.
 *
 * @param after list only what sorts after this: v1's marker, v2's token or else start-after; empty for none
 */
public record ListRequest(int version, String prefix, String delimiter, int maxKeys, boolean urlEncoded, Optional<String> marker,
        Optional<String> continuationToken, Optional<String> startAfter, boolean fetchOwner, Optional<String> after) {
    public static final int MAX_KEYS = 1000;
    private static final String TOKEN_MARK = "wst1:";

    /**
     * @throws S3Error InvalidArgument naming the parameter whose value is wrong
     */
    public static ListRequest parse(QueryString query) {
        int version = switch (query.first("list-type").orElse("1")) {
            case "1" -> 1;
            case "2" -> 2;
            default -> throw invalid("list-type", query.first("list-type").orElseThrow(), "must be 1 or 2");
        };
        String encoding = query.first("encoding-type").orElse(null);
        if (encoding != null && !encoding.toLowerCase(Locale.ROOT).equals("url")) {
            throw invalid("encoding-type", encoding, "the only encoding is 'url'");
        }
        Optional<String> marker = version == 1 ? query.first("marker") : Optional.empty();
        Optional<String> token = version == 2 ? query.first("continuation-token") : Optional.empty();
        Optional<String> startAfter = version == 2 ? query.first("start-after") : Optional.empty();
        Optional<String> after = version == 1 ? marker : token.map(ListRequest::decodeToken).or(() -> startAfter);
        return new ListRequest(version, query.first("prefix").orElse(""), query.first("delimiter").orElse(""),
                maxKeys(query.first("max-keys").orElse(null)), encoding != null, marker.filter(m -> !m.isEmpty()), token, startAfter,
                version == 1 || query.first("fetch-owner").map("true"::equalsIgnoreCase).orElse(false), after.filter(a -> !a.isEmpty()));
    }

    /**
     * The opaque token that continues a listing after {@code lastReturned} (a key or a common prefix):
     * marked, so that a token this gateway did not give out (mistyped, cut short) is refused rather
     * than taken for a key after which nothing sorts, which would end the listing with no error.
     */
    public static String token(String lastReturned) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((TOKEN_MARK + lastReturned).getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeToken(String token) {
        try {
            String decoded = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Base64.getUrlDecoder().decode(token))).toString();
            if (decoded.startsWith(TOKEN_MARK)) {
                return decoded.substring(TOKEN_MARK.length());
            }
        } catch (IllegalArgumentException | CharacterCodingException e) {
            // Not base64, or not text: refused below as any other token this gateway did not give out.
        }
        throw invalid("continuation-token", token, "is not a token this gateway gave out");
    }

    private static int maxKeys(String text) {
        if (text == null) {
            return MAX_KEYS;
        }
        try {
            int n = Integer.parseInt(text);
            if (n >= 0) {
                return Math.min(n, MAX_KEYS);
            }
        } catch (NumberFormatException e) {
            // Too large for an int still asks for every key a page may hold.
            if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
                return MAX_KEYS;
            }
        }
        throw invalid("max-keys", text, "must be a non-negative integer");
    }

    private static S3Error invalid(String parameter, String value, String why) {
        return new S3Error(ErrorCode.INVALID_ARGUMENT, parameter + " '" + value + "' " + why).with("ArgumentName", parameter)
                .with("ArgumentValue", value);
    }
}
