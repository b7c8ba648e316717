package dev.chorus.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.conditions.ArchConditions;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The arrows of docs/architecture.md as ArchUnit rules over the production classes of every module. {@link
 * ArchitectureTest} checks them on the real tree; {@link ArchitectureRulesCanFailTest} shows each kind of rule
 * failing on a test-only fixture class, so that a rule that silently matches nothing would be noticed.
 *
 * <p>A module is its top package: {@code dev.chorus.gossip}, {@code dev.chorus.learning}, {@code dev.chorus.gpu}
 * (module gpu-backend), {@code dev.chorus.aggregation}, {@code dev.chorus.privacy}, {@code dev.chorus.node},
 * {@code dev.chorus.testnet} and {@code dev.chorus.cli}.
 */
final class ArchitectureRules {

    static final String GOSSIP = "dev.chorus.gossip..";
    static final String LEARNING = "dev.chorus.learning..";
    /** The tensor SPI itself: the package, not its CPU backends ({@code .nd4j}, {@code .reference}). */
    static final String TENSOR_SPI = "dev.chorus.learning.tensor";

    static final String GPU = "dev.chorus.gpu..";
    static final String AGGREGATION = "dev.chorus.aggregation..";
    static final String PRIVACY = "dev.chorus.privacy..";
    static final String NODE = "dev.chorus.node..";
    static final String TESTNET = "dev.chorus.testnet..";
    static final String CLI = "dev.chorus.cli..";

    /** The modules below node, which know nothing of the daemon, the testnet or the command line. */
    static final String[] BASE_MODULES = {GOSSIP, LEARNING, AGGREGATION, PRIVACY};

    private ArchitectureRules() {}

    // ---- cycles ----

    /**
     * {@code (**)} captures the whole package name below {@code dev.chorus}, so every Java package is a slice of its
     * own: {@code dev.chorus.node} and {@code dev.chorus.node.protocol} are two slices, and an arrow each way between
     * them is a cycle ({@link ArchitectureRulesCanFailTest} pins that meaning).
     */
    static final ArchRule PACKAGES_FREE_OF_CYCLES = slices().matching("dev.chorus.(**)")
            .namingSlices("package dev.chorus.$1")
            .should()
            .beFreeOfCycles()
            .because("a cycle between two packages means a type belongs lower down (docs/architecture.md)");

    /** One slice per module (top package); Maven forbids cycles between the jars, this catches them in the code. */
    static final ArchRule MODULES_FREE_OF_CYCLES = slices().matching("dev.chorus.(*)..")
            .namingSlices("module $1")
            .should()
            .beFreeOfCycles()
            .because("the module arrows of docs/architecture.md point one way");

    // ---- third-party libraries, each in its one module ----

    static final ArchRule NETTY_ONLY_IN_GOSSIP = noClasses()
            .that()
            .resideOutsideOfPackage(GOSSIP)
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.netty..")
            .because("only gossip knows Netty; the rest sees its future-based Stream (docs/architecture.md)");

    static final ArchRule VERTX_ONLY_IN_NODE = noClasses()
            .that()
            .resideOutsideOfPackage(NODE)
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.vertx..")
            .because("the HTTP API on Vert.x is node's (node.api)");

    static final ArchRule PICOCLI_ONLY_IN_CLI = noClasses()
            .that()
            .resideOutsideOfPackage(CLI)
            .should()
            .dependOnClassesThat()
            .resideInAPackage("picocli..")
            .because("the command line lives in the cli module; the modules below take plain arguments");

    // ---- networking and ND4J stay out of the pure modules ----

    /** In {@code java.net}, only names and their codecs: everything else there opens or describes a connection. */
    private static final Set<String> JAVA_NET_NAMES = Set.of(
            "java.net.URI",
            "java.net.URISyntaxException",
            "java.net.URL",
            "java.net.MalformedURLException",
            "java.net.URLEncoder",
            "java.net.URLDecoder");

    private static final Pattern SOCKET_CHANNEL = Pattern.compile(
            "java\\.nio\\.channels\\.(SocketChannel|ServerSocketChannel|DatagramChannel|AsynchronousSocketChannel"
                    + "|AsynchronousServerSocketChannel|NetworkChannel|MulticastChannel|MembershipKey)");

    /**
     * What counts as networking: Netty, Vert.x, the gossip module, every class of {@code java.net} but URI/URL and
     * their codecs (sockets, addresses, interfaces, URL connections), {@code java.net.http} (the HTTP client), the
     * socket and datagram channels of {@code java.nio.channels} (file channels stay allowed), {@code javax.net} (TLS
     * sockets), {@code jdk.net}, {@code sun.net}, the JDK's HTTP server and RMI.
     */
    static final DescribedPredicate<JavaClass> NETWORKING = resideInAnyPackage(
                    "io.netty..",
                    "io.vertx..",
                    GOSSIP,
                    "java.net.http..",
                    "javax.net..",
                    "jdk.net..",
                    "sun.net..",
                    "com.sun.net.httpserver..",
                    "java.rmi..")
            .or(describe(
                    "are in java.net but not URI, URL or their codecs",
                    c -> c.getPackageName().equals("java.net") && !JAVA_NET_NAMES.contains(c.getName())))
            .or(describe(
                    "are socket or datagram channels of java.nio.channels",
                    c -> SOCKET_CHANNEL.matcher(c.getName()).matches()))
            .as("do networking (Netty, Vert.x, gossip, java.net sockets/addresses/HTTP, socket channels, javax.net,"
                    + " RMI)");

    static final ArchRule PURE_MODULES_FREE_OF_NETWORKING = noClasses()
            .that()
            .resideInAnyPackage(AGGREGATION, PRIVACY, LEARNING)
            .should()
            .dependOnClassesThat(NETWORKING)
            .because("aggregation, privacy and learning are pure code over arrays and messages; node does the"
                    + " networking (DESIGN.md)");

    static final ArchRule AGGREGATION_AND_PRIVACY_FREE_OF_ND4J = noClasses()
            .that()
            .resideInAnyPackage(AGGREGATION, PRIVACY)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.nd4j..", "org.bytedeco..", "org.deeplearning4j..")
            .because("aggregation and privacy work on plain float[] and bytes, fast to test (DESIGN.md)");

    // ---- module arrows ----

    static final ArchRule BASE_MODULES_NEVER_DEPEND_ON_NODE_TESTNET_CLI = noClasses()
            .that()
            .resideInAnyPackage(BASE_MODULES)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(NODE, TESTNET, CLI)
            .because("gossip, learning, aggregation and privacy sit below node, testnet and cli");

    /**
     * Sideways arrows between the base modules: gossip has no ML module, aggregation is JDK only, privacy is Bouncy
     * Castle only, learning is ND4J only (DESIGN.md's module table), and none of them knows gpu-backend, which is found
     * through the tensor SPI's ServiceLoader.
     */
    static final ArchRule BASE_MODULES_INDEPENDENT_OF_EACH_OTHER = classes()
            .that()
            .resideInAnyPackage(BASE_MODULES)
            .should(ownModuleOrNoneOf(GOSSIP, LEARNING, GPU, AGGREGATION, PRIVACY))
            .because("each base module depends on no other Chorus module (DESIGN.md's module table)");

    static final ArchRule GPU_ONLY_ON_TENSOR_SPI = classes()
            .that()
            .resideInAPackage(GPU)
            .should()
            .onlyDependOnClassesThat(resideOutsideOfPackages("dev.chorus..").or(resideInAnyPackage(GPU, TENSOR_SPI)))
            .because("gpu-backend implements learning's tensor SPI (dev.chorus.learning.tensor) and nothing else");

    static final ArchRule NODE_NEVER_ON_TESTNET_OR_CLI = noClasses()
            .that()
            .resideInAPackage(NODE)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(TESTNET, CLI)
            .because("testnet and cli are built on node, not the other way round");

    static final ArchRule TESTNET_NEVER_ON_CLI = noClasses()
            .that()
            .resideInAPackage(TESTNET)
            .should()
            .dependOnClassesThat()
            .resideInAPackage(CLI)
            .because("cli is the top module; the testnet is driven through its own API");

    /**
     * Classes should not depend on the given modules other than their own. A module is the package pattern's top
     * package.
     */
    private static ArchCondition<JavaClass> ownModuleOrNoneOf(String... modules) {
        return ArchConditions.onlyHaveDependenciesWhere(describe(
                        "the target is in the origin's own module or in none of " + String.join(", ", modules),
                        (Dependency d) -> {
                            String origin = module(d.getOriginClass());
                            String target = module(d.getTargetClass());
                            if (target == null || target.equals(origin)) {
                                return true;
                            }
                            for (String m : modules) {
                                if (m.equals("dev.chorus." + target + "..")) {
                                    return false;
                                }
                            }
                            return true;
                        }))
                .as("depend on no other base module");
    }

    /** The module (top package below dev.chorus) of a class, or null outside dev.chorus. */
    static String module(JavaClass c) {
        String p = c.getPackageName();
        if (!p.startsWith("dev.chorus.")) {
            return null;
        }
        String rest = p.substring("dev.chorus.".length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    /**
     * {@link ImportOption.DoNotIncludeTests} skips test-classes folders, but a module's test-jar (node's and learning's
     * are test dependencies of cli) comes as a {@code -tests.jar} once it has been installed or packaged, and the
     * test-support module (a test dependency of every module) as its classes folder or jar.
     */
    static final class DoNotIncludeTestJars implements ImportOption {
        private static final Pattern TEST_JAR =
                Pattern.compile(".*(-tests\\.jar!/|/test-support/target/classes/|chorus-test-support-[^/]*\\.jar!/).*");

        @Override
        public boolean includes(Location location) {
            return !location.matches(TEST_JAR);
        }
    }
}
