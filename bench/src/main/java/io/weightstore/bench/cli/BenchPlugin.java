package io.weightstore.bench.cli;

import io.weightstore.cli.CommandPlugin;

/** Adds {@code weightstore bench} when the bench module is on the class path. */
public final class BenchPlugin implements CommandPlugin {
    @Override
    public Object command() {
        return new BenchCommand();
    }
}
