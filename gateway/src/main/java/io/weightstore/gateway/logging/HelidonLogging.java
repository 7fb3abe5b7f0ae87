package io.weightstore.gateway.logging;

import io.helidon.logging.common.spi.LoggingProvider;

/**
 * Tells Helidon that logging is taken care of: it logs through {@code System.Logger}, which
 * slf4j-jdk-platform-logging hands to SLF4J, set up by whoever runs the gateway. Without a provider
 * Helidon prints to standard error, at every start, that it found no logging implementation. (The
 * jlama module has the same one for {@code serve}; Helidon takes the first it finds.)
 */
public final class HelidonLogging implements LoggingProvider {
    @Override
    public void initialization() {}

    @Override
    public void runTime() {}
}
