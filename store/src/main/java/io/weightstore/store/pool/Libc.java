package io.weightstore.store.pool;

import io.weightstore.store.api.StoreException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * The libc calls this package makes through the FFM linker, linked on the first call: a pool run
 * mapped by the JDK needs none of them, and in a fresh process the first link costs tens of
 * milliseconds of a model's load. Calls that can fail for a reason the caller reports capture errno.
 */
final class Libc {
    static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
    static final long PAGE = 4096;

    static final int PROT_NONE = 0;
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 0x01;
    static final int MAP_PRIVATE = 0x02;
    static final int MAP_FIXED = 0x10;
    static final int MAP_ANONYMOUS = 0x20;
    static final int MAP_NORESERVE = 0x4000;
    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x80000;
    static final int MADV_FREE = 8;
    static final int MADV_HUGEPAGE = 14;
    static final int MADV_POPULATE_READ = 22;
    static final int SEEK_HOLE = 4;
    static final int EINVAL = 22;
    static final int EFAULT = 14;

    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();

    private Libc() {}

    /** Whether the system's pages are 4 KiB, which stitching pieces of pool files together needs. */
    static boolean fourKibPages() {
        return Linked.FOUR_KIB_PAGES;
    }

    /** The system's page size, to which mincore(2) and madvise(2) want their addresses aligned; {@link #PAGE} if unknown. */
    static long pageSize() {
        return Linked.PAGE_SIZE;
    }

    /** mmap(2), its failure an {@link StoreException.Code#IO} that says it could not {@code what}, and why. */
    static MemorySegment mmap(MemorySegment state, MemorySegment at, long length, int protection, int flags, int fd, long offset,
            String what) throws StoreException {
        MemorySegment address;
        try {
            address = (MemorySegment) Linked.MMAP.invokeExact(state, at, length, protection, flags, fd, offset);
        } catch (Throwable e) {
            throw new IllegalStateException("mmap(2) failed to run", e);
        }
        if (address.address() == -1L) {
            throw new StoreException(StoreException.Code.IO, "cannot " + what + ": " + error(state));
        }
        return address;
    }

    /** munmap(2) of what this package mapped: it fails only on a bug of ours. */
    static void munmap(long address, long length) {
        int result;
        try {
            result = (int) Linked.MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
        } catch (Throwable e) {
            throw new IllegalStateException("munmap(2) failed to run", e);
        }
        if (result != 0) {
            throw new IllegalStateException("munmap of " + length + " bytes at 0x" + Long.toHexString(address) + " failed");
        }
    }

    /** madvise(2); a kernel without the feature refuses the advice, which costs only speed, so its answer is not read. */
    static void madvise(long address, long length, int advice) {
        try {
            int ignored = (int) Linked.MADVISE.invokeExact(MemorySegment.ofAddress(address), length, advice);
        } catch (Throwable e) {
            throw new IllegalStateException("madvise(2) failed to run", e);
        }
    }

    /** madvise(2) whose answer counts: 0, or -1 with errno in {@code state}. */
    static int madvise(MemorySegment state, long address, long length, int advice) {
        try {
            return (int) Linked.MADVISE_CAPTURING.invokeExact(state, MemorySegment.ofAddress(address), length, advice);
        } catch (Throwable e) {
            throw new IllegalStateException("madvise(2) failed to run", e);
        }
    }

    /** mincore(2) of {@code length} bytes at {@code address}, one byte per page into {@code vector}: 0, or -1 with errno in {@code state}. */
    static int mincore(MemorySegment state, long address, long length, MemorySegment vector) {
        try {
            return (int) Linked.MINCORE.invokeExact(state, MemorySegment.ofAddress(address), length, vector);
        } catch (Throwable e) {
            throw new IllegalStateException("mincore(2) failed to run", e);
        }
    }

    /** lseek(2): the offset it went to, or -1 with errno in {@code state}. */
    static long lseek(MemorySegment state, int fd, long offset, int whence) {
        try {
            return (long) Linked.LSEEK.invokeExact(state, fd, offset, whence);
        } catch (Throwable e) {
            throw new IllegalStateException("lseek(2) failed to run", e);
        }
    }

    /** The errno a capturing call left in {@code state}. */
    static int errno(MemorySegment state) {
        return (int) Linked.ERRNO.get(state, 0L);
    }

    /** open(2) of {@code path}: a descriptor, or a negative number with errno in {@code state}. */
    static int open(MemorySegment state, Arena call, String path, int flags) {
        try {
            return (int) Linked.OPEN.invokeExact(state, call.allocateFrom(path), flags);
        } catch (Throwable e) {
            throw new IllegalStateException("open(2) failed to run", e);
        }
    }

    static void close(int fd) {
        try {
            int ignored = (int) Linked.CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            throw new IllegalStateException("close(2) failed to run", e);
        }
    }

    /** The error a capturing call left in {@code state}, as strerror(3) words it, with its number. */
    static String error(MemorySegment state) {
        int errno = errno(state);
        try {
            MemorySegment text = (MemorySegment) Linked.STRERROR.invokeExact(errno);
            return text.getString(0) + " (errno " + errno + ")";
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    /** The linked calls: a class of their own, so that reading a constant above links nothing. */
    private static final class Linked {
        private static final Linker LINKER = Linker.nativeLinker();
        private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        private static final int SC_PAGESIZE = 30;
        private static final MethodHandle MMAP = capturing("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        private static final MethodHandle MUNMAP = plain("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG));
        private static final MethodHandle MADVISE = plain("madvise", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        private static final MethodHandle MADVISE_CAPTURING = capturing("madvise", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        private static final MethodHandle MINCORE = capturing("mincore", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        private static final MethodHandle LSEEK = capturing("lseek", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        private static final MethodHandle OPEN = capturing("open", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT));
        private static final MethodHandle CLOSE = plain("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        private static final MethodHandle STRERROR = plain("strerror", FunctionDescriptor.of(
                ValueLayout.ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, ValueLayout.JAVA_BYTE)), ValueLayout.JAVA_INT));
        static final long PAGE_SIZE = pageSize() > 0 ? pageSize() : PAGE;
        static final boolean FOUR_KIB_PAGES = PAGE_SIZE == PAGE;

        private Linked() {}

        private static MethodHandle capturing(String name, FunctionDescriptor descriptor) {
            return LINKER.downcallHandle(symbol(name), descriptor, Linker.Option.captureCallState("errno"));
        }

        private static MethodHandle plain(String name, FunctionDescriptor descriptor) {
            return LINKER.downcallHandle(symbol(name), descriptor);
        }

        private static MemorySegment symbol(String name) {
            return LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
        }

        private static long pageSize() {
            try {
                return (long) plain("sysconf", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)).invokeExact(SC_PAGESIZE);
            } catch (Throwable e) {
                return -1;
            }
        }
    }
}
