package dev.chorus.gpu.cuda;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A C function reached through the foreign function API: the symbol its library exports (for
 * versioned driver entry points, the {@code _v2} name that {@code cuda.h} maps the API name to),
 * the name the header declares, and its signature. C {@code int}, {@code unsigned int} and enums
 * are {@link ValueLayout#JAVA_INT}; {@code size_t} and {@code CUdeviceptr} are {@link
 * ValueLayout#JAVA_LONG}; pointers and opaque handles are {@link ValueLayout#ADDRESS}.
 */
public interface NativeFunction {

    ValueLayout INT = ValueLayout.JAVA_INT;
    ValueLayout LONG = ValueLayout.JAVA_LONG;
    ValueLayout FLOAT = ValueLayout.JAVA_FLOAT;
    ValueLayout PTR = ValueLayout.ADDRESS;

    /** The exported symbol. */
    String symbol();

    /** The name declared in the header (what the documentation calls the function). */
    String headerName();

    /** The C signature. */
    FunctionDescriptor descriptor();

    /** A status-returning function: {@code int f(args)}. */
    static FunctionDescriptor status(MemoryLayout... args) {
        return FunctionDescriptor.of(INT, args);
    }

    /**
     * Looks the symbol up and creates its downcall handle.
     *
     * @throws UnsatisfiedLinkError naming the library and the symbol when it is missing
     */
    static MethodHandle bind(SymbolLookup lookup, String library, NativeFunction f) {
        MemorySegment address = lookup.find(f.symbol())
                .orElseThrow(() -> new UnsatisfiedLinkError(
                        library + " does not export " + f.symbol() + " (is it older than this backend needs?)"));
        return Linker.nativeLinker().downcallHandle(address, f.descriptor());
    }
}
