package io.weightstore.store.wire;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import java.util.List;

/**
 * What a client asks of a node. Offsets are in the node's pool data region. Reads carry the
 * checksum blocks the node must verify before it sends a byte.
 */
public sealed interface Request {
    Op op();

    /** Bytes the node sends back after an OK response header (0 for a write, whose payload goes the other way). */
    long payloadLength();

    record Read(Range range, List<BlockCheck> checks) implements Request {
        public Read {
            checks = List.copyOf(checks);
        }

        @Override
        public Op op() {
            return Op.READ;
        }

        @Override
        public long payloadLength() {
            return range.length();
        }
    }

    /** Several ranges, sent back one after another in this order. */
    record ReadRanges(List<Range> ranges, List<BlockCheck> checks) implements Request {
        public ReadRanges {
            ranges = List.copyOf(ranges);
            checks = List.copyOf(checks);
        }

        @Override
        public Op op() {
            return Op.READ_RANGES;
        }

        @Override
        public long payloadLength() {
            return ranges.stream().mapToLong(Range::length).sum();
        }
    }

    /** Rows of a stride, sent back packed. */
    record ReadStrided(Stride stride, List<BlockCheck> checks) implements Request {
        public ReadStrided {
            checks = List.copyOf(checks);
        }

        @Override
        public Op op() {
            return Op.READ_STRIDED;
        }

        @Override
        public long payloadLength() {
            return stride.bytes();
        }
    }

    /**
     * {@code range.length()} payload bytes follow the frame, to be stored at {@code range.offset()}; on a
     * secure cluster {@code grant} is the master's write grant for exactly that place.
     */
    record Write(Range range, Ticket grant) implements Request {
        @Override
        public Op op() {
            return Op.WRITE;
        }

        @Override
        public long payloadLength() {
            return 0;
        }
    }
}
