package io.weightstore.cli;

import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.loader.CheckpointSource;
import java.net.URI;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code weightstore://ID} on the command line, refused with the form expected rather than {@link URI}'s parser's words. */
final class StoreUriConverter implements ITypeConverter<URI> {
    @Override
    public URI convert(String text) {
        try {
            return CheckpointSource.storeUri(text);
        } catch (CheckpointException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
