package io.weightstore.cli;

import io.weightstore.store.api.CongestionControl;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** {@code --tcp-congestion}, for the servers whose answers are bulk bytes: a node, the S3 gateway. */
final class TcpCongestionOption {
    /** {@code system} or a kernel algorithm's name. */
    static final class Converter implements ITypeConverter<CongestionControl> {
        @Override
        public CongestionControl convert(String value) {
            return new CongestionControl(value);
        }
    }

    @Option(names = "--tcp-congestion", defaultValue = "cubic", paramLabel = "NAME|system", converter = Converter.class,
            description = "TCP congestion control this server's answers are sent under: a kernel algorithm (cubic, reno, bbr, ...),"
                    + " or system for the host's net.ipv4.tcp_congestion_control. Under bbr without the fq queueing discipline the"
                    + " kernel paces each connection with timers of its own, which on loopback cost three times the CPU per byte"
                    + " of cubic. An algorithm the kernel lacks stops the server before it starts. Needs the launcher's"
                    + " --add-exports java.base/sun.nio.ch=ALL-UNNAMED; without it the host's default stays, as the log says."
                    + " Default: ${DEFAULT-VALUE}.")
    CongestionControl algorithm;
}
