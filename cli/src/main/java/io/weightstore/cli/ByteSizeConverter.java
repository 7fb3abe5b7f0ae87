package io.weightstore.cli;

import io.weightstore.weights.ByteSizes;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Sizes on the command line ({@code 512M}, {@code 4G}, {@code 1.5T}): a wrong one is refused naming its flag, with exit 2. */
final class ByteSizeConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String text) {
        try {
            return ByteSizes.parse(text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
