package dev.chorus.architecture;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreeScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Measures methods and constructors in Java sources with the JDK's own parser (no attribution, so no class path is
 * needed): a method or constructor is too long past {@value #MAX_LINES} lines, counted from the first line of its
 * declaration (its modifiers, type parameters or return type; javadoc and annotations above it do not count) to its
 * closing brace inclusive; a constructor is too wide past {@value #MAX_PARAMETERS} parameters. A record's canonical
 * constructor has one parameter per component whether it is written out, compact or implicit, so a record with more
 * than {@value #MAX_PARAMETERS} components is reported once, at its header.
 */
final class CodeSizeChecker {

    static final int MAX_LINES = 80;
    static final int MAX_PARAMETERS = 8;

    /** One method or constructor over a limit; {@code toString} is {@code path:line member (N lines)}. */
    record Offender(String path, long line, String member, String measure) {
        @Override
        public String toString() {
            return path + ":" + line + " " + member + " (" + measure + ")";
        }
    }

    /** What one run saw, so that a test can tell a clean tree from one that was never read. */
    record Result(int files, int methods, List<Offender> offenders) {}

    private CodeSizeChecker() {}

    /** Checks every {@code .java} file under the given source roots; paths are reported relative to {@code base}. */
    static Result checkSourceRoots(Path base, Collection<Path> sourceRoots) {
        List<Path> files = new ArrayList<>();
        for (Path root : sourceRoots) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
                        .sorted()
                        .forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return checkFiles(base, files);
    }

    static Result checkFiles(Path base, List<Path> files) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        if (compiler == null) {
            throw new IllegalStateException("no system Java compiler: run the tests on a JDK, not a JRE");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager =
                compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            JavacTask task = (JavacTask) compiler.getTask(
                    null,
                    fileManager,
                    diagnostics,
                    List.of("-proc:none"),
                    null,
                    fileManager.getJavaFileObjectsFromPaths(files));
            List<CompilationUnitTree> units = new ArrayList<>();
            task.parse().forEach(units::add);
            List<String> errors = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                    .map(d -> d.getSource() + ":" + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT))
                    .toList();
            if (!errors.isEmpty()) {
                throw new IllegalStateException("cannot parse:\n" + String.join("\n", errors));
            }
            SourcePositions positions = Trees.instance(task).getSourcePositions();
            List<Offender> offenders = new ArrayList<>();
            int methods = 0;
            for (CompilationUnitTree unit : units) {
                Path file = Path.of(unit.getSourceFile().toUri());
                String path = base.relativize(file.toAbsolutePath().normalize())
                        .toString()
                        .replace('\\', '/');
                Scanner scanner = new Scanner(unit, positions, path, offenders);
                scanner.scan(unit, null);
                methods += scanner.methods;
            }
            return new Result(units.size(), methods, List.copyOf(offenders));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Scanner extends TreeScanner<Void, Void> {
        private final CompilationUnitTree unit;
        private final SourcePositions positions;
        private final LineMap lines;
        private final String source;
        private final String path;
        private final List<Offender> offenders;
        private final Deque<String> typeNames = new ArrayDeque<>();
        /** The component names of the records being scanned, innermost first; empty list for other types. */
        private final Deque<List<String>> recordComponents = new ArrayDeque<>();

        int methods;

        Scanner(CompilationUnitTree unit, SourcePositions positions, String path, List<Offender> offenders)
                throws IOException {
            this.unit = unit;
            this.positions = positions;
            this.lines = unit.getLineMap();
            this.source = unit.getSourceFile().getCharContent(true).toString();
            this.path = path;
            this.offenders = offenders;
        }

        @Override
        public Void visitClass(ClassTree type, Void unused) {
            String name = type.getSimpleName().toString();
            typeNames.push(name.isEmpty() ? "<anonymous>" : name);
            List<String> components = List.of();
            if (type.getKind() == Tree.Kind.RECORD) {
                // A record's only instance fields are its components.
                components = type.getMembers().stream()
                        .filter(m -> m instanceof VariableTree v
                                && !v.getModifiers().getFlags().contains(Modifier.STATIC))
                        .map(m -> ((VariableTree) m).getName().toString())
                        .toList();
                if (components.size() > MAX_PARAMETERS) {
                    long line = lines.getLineNumber(
                            declarationStart(type, type.getModifiers().getAnnotations()));
                    offenders.add(new Offender(
                            path,
                            line,
                            typeName() + ".<init>",
                            "canonical constructor, " + components.size() + " parameters"));
                }
            }
            recordComponents.push(components);
            try {
                return super.visitClass(type, unused);
            } finally {
                recordComponents.pop();
                typeNames.pop();
            }
        }

        @Override
        public Void visitMethod(MethodTree method, Void unused) {
            long start = declarationStart(method, method.getModifiers().getAnnotations());
            long end = positions.getEndPosition(unit, method);
            if (start >= 0 && end > start) {
                methods++;
                boolean constructor = method.getName().contentEquals("<init>");
                String member = typeName() + "." + method.getName();
                long firstLine = lines.getLineNumber(start);
                long length = lines.getLineNumber(end - 1) - firstLine + 1;
                if (length > MAX_LINES) {
                    offenders.add(new Offender(path, firstLine, member, length + " lines"));
                }
                int parameters = method.getParameters().size();
                if (constructor && parameters > MAX_PARAMETERS && !isCanonical(method)) {
                    offenders.add(new Offender(path, firstLine, member, parameters + " parameters"));
                }
            }
            return super.visitMethod(method, unused);
        }

        /** Canonical (written out or compact) constructors are reported once, at the record header. */
        private boolean isCanonical(MethodTree constructor) {
            List<String> components = recordComponents.peek();
            List<String> parameters = constructor.getParameters().stream()
                    .map(p -> p.getName().toString())
                    .toList();
            return components != null && !components.isEmpty() && components.equals(parameters);
        }

        /** Where the declaration starts once the annotations in front of it are skipped, with the blanks after them. */
        private long declarationStart(Tree declaration, List<? extends AnnotationTree> annotations) {
            long start = positions.getStartPosition(unit, declaration);
            for (AnnotationTree annotation : annotations) {
                if (positions.getStartPosition(unit, annotation) != start) {
                    break; // an annotation after a modifier keyword (public @Nullable String m()) is inside the line
                }
                start = skipBlanksAndComments(positions.getEndPosition(unit, annotation));
            }
            return start;
        }

        private long skipBlanksAndComments(long from) {
            int i = (int) from;
            while (i < source.length()) {
                char c = source.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (startsWith(i, "//")) {
                    while (i < source.length() && source.charAt(i) != '\n') {
                        i++;
                    }
                } else if (startsWith(i, "/*")) {
                    int close = source.indexOf("*/", i + 2);
                    i = close < 0 ? source.length() : close + 2;
                } else {
                    break;
                }
            }
            return i;
        }

        private boolean startsWith(int i, String s) {
            return source.startsWith(s, i);
        }

        private String typeName() {
            List<String> outerFirst = new ArrayList<>(typeNames);
            Collections.reverse(outerFirst);
            return String.join(".", outerFirst);
        }
    }

    /** The modules that the root pom lists, in its order. */
    static List<String> modules(Path projectRoot) {
        try {
            String pom = Files.readString(projectRoot.resolve("pom.xml"));
            return Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>")
                    .matcher(pom)
                    .results()
                    .map(m -> m.group(1))
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory of the root pom (the one listing the cli module), found by walking up from {@code from}. */
    static Path projectRoot(Path from) {
        for (Path dir = from.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && Files.readString(pom).contains("<module>cli</module>")) {
                    return dir;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no root pom.xml listing <module>cli</module> above " + from);
    }
}
