package io.weightstore.cli;

import io.weightstore.store.api.CongestionControl;
import picocli.CommandLine.ITypeConverter;

/** {@code --tcp-congestion}: {@code system} or a kernel algorithm's name. */
final class CongestionControlConverter implements ITypeConverter<CongestionControl> {
    @Override
    public CongestionControl convert(String value) {
        return new CongestionControl(value);
    }
}
