package io.weightstore.gateway.bucket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.InPlaceFiles;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.CheckpointId;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedLeasesTest {
    /** Where the bytes of a pool file begin, after its header (the store's PoolFile.DATA_START, not exported). */
    private static final long POOL_DATA_START = 4096;
    private static final String KEY = "weights/w/files/model.safetensors";
    private static final int SIZE = 3 << 20;
    private static final SharedLeases.FileVersion FILE = new SharedLeases.FileVersion(new CheckpointId("w"), "model.safetensors",
            Instant.EPOCH);

    @TempDir
    Path tmp;

    private StoreClient store;
    private byte[] data;
    private final AtomicInteger opened = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
        data = new byte[SIZE];
        new Random(11).nextBytes(data);
        store.put(KEY, data, PutOptions.defaults());
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private SharedLeases.Opener opener() {
        return () -> {
            opened.incrementAndGet();
            return store.open(KEY);
        };
    }

    private void assertLeased(boolean leased) throws IOException {
        if (leased) {
            assertThatThrownBy(() -> store.remove(KEY, false)).isInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
        } else {
            store.remove(KEY, false);
        }
    }

    @Test
    void twoRequestsInFlightShareOneLeaseReleasedWhenTheLastIsDone() throws IOException {
        SharedLeases leases = new SharedLeases();
        OpenFile first = leases.acquire(FILE, opener());
        OpenFile second = leases.acquire(FILE, opener());
        assertThat(opened).hasValue(1);
        assertThat(second.reader()).isSameAs(first.reader());
        assertThat(leases.held()).isEqualTo(1);
        first.close();
        first.close();   // a second close of one request's file does not end the other's use
        assertLeased(true);
        second.close();
        assertThat(leases.held()).isZero();
        assertLeased(false);
    }

    @Test
    void requestsThatArriveTogetherWaitForOneLeaseRatherThanTakeOneEach() throws Exception {
        SharedLeases leases = new SharedLeases();
        CountDownLatch opening = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        SharedLeases.Opener slow = () -> {
            opening.countDown();
            try {
                proceed.await();
            } catch (InterruptedException e) {
                throw new IOException("interrupted", e);
            }
            return opener().open();
        };
        OpenFile[] files = new OpenFile[2];
        Thread firstThread = Thread.ofVirtual().start(() -> files[0] = acquire(leases, slow));
        opening.await();
        Thread secondThread = Thread.ofVirtual().start(() -> files[1] = acquire(leases, opener()));
        Thread.sleep(200);   // the second request is waiting for the first's open by now
        proceed.countDown();
        firstThread.join();
        secondThread.join();
        assertThat(opened).hasValue(1);
        assertThat(files[1].reader()).isSameAs(files[0].reader());
        files[0].close();
        files[1].close();
        assertLeased(false);
    }

    @Test
    void aLeaseThatFailedToOpenIsNotSharedAndTheNextRequestOpensAgain() throws IOException {
        SharedLeases leases = new SharedLeases();
        assertThatThrownBy(() -> leases.acquire(FILE, () -> {
            throw new IOException("the master is away");
        })).hasMessage("the master is away");
        assertThat(leases.held()).isZero();
        try (OpenFile file = leases.acquire(FILE, opener())) {
            assertThat(file.reader().size()).isEqualTo(SIZE);
        }
        assertThat(opened).hasValue(1);
    }

    @Test
    void theObjectInPlaceIsCheckedAndItsFilesClosedWhenTheLeaseEnds() throws IOException {
        SharedLeases leases = new SharedLeases();
        List<InPlaceFiles.FileRange> ranges;
        try (OpenFile file = leases.acquire(FILE, opener())) {
            ranges = file.inPlace().orElseThrow().ranges(0, SIZE);
            ByteBuffer read = ByteBuffer.allocate(SIZE);
            for (InPlaceFiles.FileRange range : ranges) {
                read.put(readFully(range));
            }
            assertThat(read.array()).isEqualTo(data);
        }
        assertThat(ranges).allSatisfy(range -> assertThat(range.file().isOpen()).isFalse());
    }

    private static ByteBuffer readFully(InPlaceFiles.FileRange range) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(range.length()));
        while (bytes.hasRemaining()) {
            if (range.file().read(bytes, range.position() + bytes.position()) < 0) {
                throw new EOFException("the pool ends before " + range);
            }
        }
        return bytes.flip();
    }

    @Test
    void aCopyWithACorruptByteIsNotServedInPlace() throws IOException {
        flipByteOfTheObject(SIZE / 2);
        SharedLeases leases = new SharedLeases();
        try (OpenFile file = leases.acquire(FILE, opener())) {
            assertThat(file.inPlace()).isEmpty();
        }
    }

    @Test
    void aLeaseKeptBusyPastItsChecksValidityIsCheckedAgainAndACorruptCopyNoLongerServed() throws IOException {
        AtomicLong now = new AtomicLong();
        SharedLeases leases = new SharedLeases(new InPlaceChecks(now::get));
        try (OpenFile first = leases.acquire(FILE, opener())) {
            assertThat(first.inPlace()).isPresent();
            flipByteOfTheObject(SIZE / 2);
            try (OpenFile within = leases.acquire(FILE, opener())) {
                assertThat(within.inPlace()).as("within the check's validity: not checked again").isPresent();
            }
            now.addAndGet(InPlaceChecks.VALID.toNanos());
            try (OpenFile later = leases.acquire(FILE, opener())) {
                assertThat(opened).as("one lease, kept by the first request").hasValue(1);
                assertThat(later.inPlace()).as("once the check ran out, on the same lease").isEmpty();
            }
        }
    }

    /** What a pool whose page rotted holds: one byte of the object's only copy flipped, in the embedded store's pool file. */
    private void flipByteOfTheObject(long offset) throws IOException {
        long replica;
        try (var reader = store.open(KEY)) {
            replica = reader.object().slices().getFirst().replicas().getFirst().offset();
        }
        try (FileChannel pool = FileChannel.open(tmp.resolve("home").resolve("pool"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long position = POOL_DATA_START + replica + offset;
            ByteBuffer b = ByteBuffer.allocate(1);
            pool.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0xFF)).rewind();
            pool.write(b, position);
        }
    }

    private static OpenFile acquire(SharedLeases leases, SharedLeases.Opener opener) {
        try {
            return leases.acquire(FILE, opener);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
