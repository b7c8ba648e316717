package dev.chorus.privacy.archfixture;

import org.nd4j.linalg.api.ndarray.INDArray;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class PrivacyUsesNd4j {
    static long length(INDArray update) {
        return update.length();
    }
}
