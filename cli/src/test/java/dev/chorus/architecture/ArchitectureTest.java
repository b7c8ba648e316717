package dev.chorus.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;
import java.util.TreeSet;

/**
 * The arrows of docs/architecture.md, checked on the production classes of every module (cli depends on all of them,
 * so they are all on this module's test class path). Test classes, this module's and those of the test-jars, are left
 * out.
 */
@AnalyzeClasses(
        packages = "dev.chorus",
        importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureRules.DoNotIncludeTestJars.class})
class ArchitectureTest {

    @ArchTest
    static void importHoldsEveryModuleAndNoTestClass(JavaClasses classes) {
        Set<String> modules = new TreeSet<>();
        for (JavaClass c : classes) {
            modules.add(ArchitectureRules.module(c));
            assertThat(c.getPackageName()).doesNotContain("archfixture");
            assertThat(c.getSource().map(s -> s.getUri().toString()).orElse(""))
                    .as(c.getName())
                    .doesNotContain("/test-classes/")
                    .doesNotContain("-tests.jar");
        }
        assertThat(modules)
                .containsExactlyInAnyOrder(
                        "gossip", "learning", "gpu", "aggregation", "privacy", "node", "testnet", "cli");
    }

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles = ArchitectureRules.PACKAGES_FREE_OF_CYCLES;

    @ArchTest
    static final ArchRule modulesAreFreeOfCycles = ArchitectureRules.MODULES_FREE_OF_CYCLES;

    @ArchTest
    static final ArchRule nettyOnlyInGossip = ArchitectureRules.NETTY_ONLY_IN_GOSSIP;

    @ArchTest
    static final ArchRule vertxOnlyInNode = ArchitectureRules.VERTX_ONLY_IN_NODE;

    @ArchTest
    static final ArchRule picocliOnlyInCli = ArchitectureRules.PICOCLI_ONLY_IN_CLI;

    @ArchTest
    static final ArchRule aggregationPrivacyLearningFreeOfNetworking =
            ArchitectureRules.PURE_MODULES_FREE_OF_NETWORKING;

    @ArchTest
    static final ArchRule aggregationAndPrivacyFreeOfNd4j = ArchitectureRules.AGGREGATION_AND_PRIVACY_FREE_OF_ND4J;

    @ArchTest
    static final ArchRule baseModulesNeverDependOnNodeTestnetCli =
            ArchitectureRules.BASE_MODULES_NEVER_DEPEND_ON_NODE_TESTNET_CLI;

    @ArchTest
    static final ArchRule baseModulesIndependentOfEachOther = ArchitectureRules.BASE_MODULES_INDEPENDENT_OF_EACH_OTHER;

    @ArchTest
    static final ArchRule gpuBackendOnlyOnTensorSpi = ArchitectureRules.GPU_ONLY_ON_TENSOR_SPI;

    @ArchTest
    static final ArchRule nodeNeverOnTestnetOrCli = ArchitectureRules.NODE_NEVER_ON_TESTNET_OR_CLI;

    @ArchTest
    static final ArchRule testnetNeverOnCli = ArchitectureRules.TESTNET_NEVER_ON_CLI;
}
