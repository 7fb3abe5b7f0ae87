package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Strict readers for request fields: a field has the JSON type the API gives it or the request is
 * refused, naming the field ({@code "5"} is not an integer, {@code 1.5} is not one either). A field
 * that is absent or {@code null} takes its default. Numbers are compared exactly, so a huge value
 * is reported as it was sent, never as an overflowed one.
 */
final class Fields {
    private Fields() {}

    static Optional<JsonNode> present(JsonNode object, String name) {
        JsonNode value = object.get(name);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    /**
     * @param maxReason why {@code max} is the maximum, for the error message; empty when evident
     */
    static OptionalLong integer(JsonNode object, String name, long min, long max, String maxReason) {
        Optional<JsonNode> field = present(object, name);
        if (field.isEmpty()) {
            return OptionalLong.empty();
        }
        JsonNode value = field.get();
        if (!value.isNumber()) {
            throw ApiError.invalid(name, "'" + name + "' must be an integer, found " + describe(value));
        }
        BigDecimal exact = value.decimalValue();
        if (exact.stripTrailingZeros().scale() > 0) {
            throw ApiError.invalid(name, "'" + name + "' must be an integer, found " + plain(exact));
        }
        if (exact.compareTo(BigDecimal.valueOf(min)) < 0) {
            throw ApiError.invalid(name, "'" + name + "' must be at least " + min + ", found " + plain(exact));
        }
        if (exact.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw ApiError.invalid(name, "'" + name + "' must be at most " + max + maxReason + ", found " + plain(exact));
        }
        return OptionalLong.of(exact.longValueExact());
    }

    static Optional<Double> number(JsonNode object, String name, double min, double max) {
        Optional<JsonNode> field = present(object, name);
        if (field.isEmpty()) {
            return Optional.empty();
        }
        JsonNode value = field.get();
        if (!value.isNumber()) {
            throw ApiError.invalid(name, "'" + name + "' must be a number, found " + describe(value));
        }
        BigDecimal exact = value.decimalValue();
        if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw ApiError.invalid(name, "'" + name + "' must be in " + min + ".." + max + ", found " + plain(exact));
        }
        return Optional.of(exact.doubleValue());
    }

    static Optional<Boolean> bool(JsonNode object, String name) {
        Optional<JsonNode> field = present(object, name);
        if (field.isPresent() && !field.get().isBoolean()) {
            throw ApiError.invalid(name, "'" + name + "' must be true or false, found " + describe(field.get()));
        }
        return field.map(JsonNode::booleanValue);
    }

    static Optional<String> string(JsonNode object, String name) {
        Optional<JsonNode> field = present(object, name);
        if (field.isPresent() && !field.get().isTextual()) {
            throw ApiError.invalid(name, "'" + name + "' must be a string, found " + describe(field.get()));
        }
        return field.map(JsonNode::textValue);
    }

    /** What a value is, for messages: its type, and the value itself when short. */
    static String describe(JsonNode value) {
        String json = value.toString();
        String shown = json.length() <= 40 ? " " + json : "";
        return switch (value.getNodeType()) {
            case STRING -> "a string" + shown;
            case NUMBER -> "the number" + shown;
            case BOOLEAN -> json;
            case ARRAY -> "an array" + shown;
            case OBJECT -> "an object" + shown;
            default -> json;
        };
    }

    /**
     * A number as written out in full: 1e12 is shown as 1000000000000, exactly; one of more than 40
     * digits either side of the point in scientific notation, judged before writing it out, since
     * {@code 1e999999999} written out in full is a gigabyte.
     */
    private static String plain(BigDecimal value) {
        BigDecimal stripped = value.stripTrailingZeros();
        boolean fits = (long) stripped.precision() - stripped.scale() <= 40 && stripped.scale() <= 40;
        return fits ? stripped.toPlainString() : stripped.toString();
    }
}
