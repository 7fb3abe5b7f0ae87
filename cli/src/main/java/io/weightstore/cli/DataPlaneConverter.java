package io.weightstore.cli;

import io.weightstore.store.node.DataPlaneProtection;
import java.util.Arrays;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;

/** {@code tls} or {@code mac}, in any case, for {@code node --data-plane}. */
final class DataPlaneConverter implements ITypeConverter<DataPlaneProtection> {
    @Override
    public DataPlaneProtection convert(String value) {
        try {
            return DataPlaneProtection.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--data-plane=" + value + " is not one of "
                    + Arrays.stream(DataPlaneProtection.values()).map(p -> p.name().toLowerCase(Locale.ROOT)).toList());
        }
    }
}
