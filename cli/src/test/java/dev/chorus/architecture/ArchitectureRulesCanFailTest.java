package dev.chorus.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.chorus.aggregation.archfixture.AggregationUsesSocket;
import dev.chorus.aggregation.archfixture.AggregationWithoutNetworking;
import dev.chorus.archfixture.cycle.a.CycleA;
import dev.chorus.archfixture.cycle.b.CycleB;
import dev.chorus.archfixture.nest.NestOuter;
import dev.chorus.archfixture.nest.inner.NestInner;
import dev.chorus.cli.archfixture.CliFixture;
import dev.chorus.gossip.archfixture.GossipUsesVertx;
import dev.chorus.gpu.archfixture.GpuUsesReferenceBackend;
import dev.chorus.gpu.archfixture.GpuUsesTensorSpi;
import dev.chorus.learning.archfixture.LearningUsesNode;
import dev.chorus.learning.archfixture.LearningUsesSocketChannel;
import dev.chorus.node.archfixture.NodeFixture;
import dev.chorus.node.archfixture.NodeUsesPicocli;
import dev.chorus.node.archfixture.NodeUsesTestnet;
import dev.chorus.privacy.archfixture.PrivacyUsesAggregation;
import dev.chorus.privacy.archfixture.PrivacyUsesHttpClient;
import dev.chorus.privacy.archfixture.PrivacyUsesNd4j;
import dev.chorus.testnet.archfixture.TestnetUsesCli;
import dev.chorus.testnet.archfixture.TestnetUsesNetty;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link ArchitectureRules} fails on a test-only class that breaks it (the fixtures in the {@code
 * archfixture} packages of this module's test sources, which {@link ArchitectureTest} does not import), and names the
 * offending dependency; the controls show that what a rule allows passes.
 */
class ArchitectureRulesCanFailTest {

    @Test
    void twoPackagesThatUseEachOtherAreACycle() {
        assertViolation(ArchitectureRules.PACKAGES_FREE_OF_CYCLES, "Cycle detected", CycleA.class, CycleB.class);
    }

    @Test
    void eachPackageIsASliceOfItsOwnSoAPackageAndItsSubpackageCanFormACycle() {
        EvaluationResult result = evaluate(ArchitectureRules.PACKAGES_FREE_OF_CYCLES, NestOuter.class, NestInner.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString())
                .contains("package dev.chorus.archfixture.nest ->")
                .contains("package dev.chorus.archfixture.nest.inner ->");
        // One module (dev.chorus.archfixture) holds both packages: no cycle between modules.
        assertNoViolation(ArchitectureRules.MODULES_FREE_OF_CYCLES, NestOuter.class, NestInner.class);
    }

    @Test
    void twoModulesThatUseEachOtherAreACycle() {
        assertViolation(
                ArchitectureRules.MODULES_FREE_OF_CYCLES,
                "module learning ->",
                LearningUsesNode.class,
                NodeFixture.class);
    }

    @Test
    void nettyOutsideGossipFails() {
        assertViolation(ArchitectureRules.NETTY_ONLY_IN_GOSSIP, "io.netty.buffer.Unpooled", TestnetUsesNetty.class);
    }

    @Test
    void vertxOutsideNodeFails() {
        assertViolation(ArchitectureRules.VERTX_ONLY_IN_NODE, "io.vertx.core.Vertx", GossipUsesVertx.class);
    }

    @Test
    void picocliOutsideCliFails() {
        assertViolation(ArchitectureRules.PICOCLI_ONLY_IN_CLI, "picocli.CommandLine", NodeUsesPicocli.class);
    }

    @Test
    void socketsHttpAndSocketChannelsInThePureModulesFail() {
        ArchRule rule = ArchitectureRules.PURE_MODULES_FREE_OF_NETWORKING;
        assertViolation(rule, "java.net.Socket", AggregationUsesSocket.class);
        assertViolation(rule, "java.net.http.HttpClient", PrivacyUsesHttpClient.class);
        assertViolation(rule, "java.nio.channels.SocketChannel", LearningUsesSocketChannel.class);
    }

    @Test
    void urisUrlsAndFileChannelsAreNotNetworking() {
        assertNoViolation(ArchitectureRules.PURE_MODULES_FREE_OF_NETWORKING, AggregationWithoutNetworking.class);
    }

    @Test
    void nd4jInPrivacyFails() {
        assertViolation(
                ArchitectureRules.AGGREGATION_AND_PRIVACY_FREE_OF_ND4J,
                "org.nd4j.linalg.api.ndarray.INDArray",
                PrivacyUsesNd4j.class);
    }

    @Test
    void learningOnNodeFails() {
        assertViolation(
                ArchitectureRules.BASE_MODULES_NEVER_DEPEND_ON_NODE_TESTNET_CLI,
                NodeFixture.class.getName(),
                LearningUsesNode.class);
    }

    @Test
    void privacyOnAggregationFails() {
        assertViolation(
                ArchitectureRules.BASE_MODULES_INDEPENDENT_OF_EACH_OTHER,
                AggregationWithoutNetworking.class.getName(),
                PrivacyUsesAggregation.class);
        // The upward arrows are the other rule's: this one leaves them alone.
        assertNoViolation(ArchitectureRules.BASE_MODULES_INDEPENDENT_OF_EACH_OTHER, LearningUsesNode.class);
    }

    @Test
    void gpuBackendOnAnythingButTheTensorSpiFails() {
        assertViolation(
                ArchitectureRules.GPU_ONLY_ON_TENSOR_SPI,
                "dev.chorus.learning.tensor.reference.ReferenceBackend",
                GpuUsesReferenceBackend.class);
        assertNoViolation(ArchitectureRules.GPU_ONLY_ON_TENSOR_SPI, GpuUsesTensorSpi.class);
    }

    @Test
    void nodeOnTestnetFails() {
        assertViolation(
                ArchitectureRules.NODE_NEVER_ON_TESTNET_OR_CLI, TestnetUsesCli.class.getName(), NodeUsesTestnet.class);
    }

    @Test
    void testnetOnCliFails() {
        assertViolation(ArchitectureRules.TESTNET_NEVER_ON_CLI, CliFixture.class.getName(), TestnetUsesCli.class);
    }

    private static EvaluationResult evaluate(ArchRule rule, Class<?>... fixtures) {
        return rule.evaluate(new ClassFileImporter().importClasses(fixtures));
    }

    private static void assertViolation(ArchRule rule, String expectedInReport, Class<?>... fixtures) {
        EvaluationResult result = evaluate(rule, fixtures);
        assertThat(result.hasViolation()).as(rule.getDescription()).isTrue();
        assertThat(result.getFailureReport().toString()).contains(expectedInReport);
    }

    private static void assertNoViolation(ArchRule rule, Class<?>... fixtures) {
        EvaluationResult result = evaluate(rule, fixtures);
        assertThat(result.hasViolation())
                .as(result.getFailureReport().toString())
                .isFalse();
    }
}
