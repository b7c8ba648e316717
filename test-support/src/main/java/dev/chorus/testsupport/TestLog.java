package dev.chorus.testsupport;

/**
 * Where a test puts figures worth reading when tuning (rates, distances, seeds of fixed-seed runs) but not on every
 * build's console: the JDK's {@link System.Logger} at DEBUG, so that nothing prints by default and a run with
 * debug logging on shows them. A figure a failure needs belongs in the assertion's description instead.
 */
public final class TestLog {

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private TestLog() {}

    /**
     * Logs {@code String.format(format, args)} at DEBUG under the calling class's name; without {@code args},
     * {@code format} as it is (a message that holds a {@code %} of its own stays intact).
     */
    public static void figures(String format, Object... args) {
        Class<?> caller = WALKER.getCallerClass();
        String text = args.length == 0 ? format : String.format(format, args);
        System.getLogger(caller.getName()).log(System.Logger.Level.DEBUG, text::strip);
    }
}
