package io.weightstore.cli;

import picocli.CommandLine.IVersionProvider;

/** Reports the build's version from the jar manifest. */
final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Version.class.getPackage().getImplementationVersion();
        return new String[] {"weightstore " + (version == null ? "(development build)" : version)
                + " on Java " + Runtime.version()};
    }
}
