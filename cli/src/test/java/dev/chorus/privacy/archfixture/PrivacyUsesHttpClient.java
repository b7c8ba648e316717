package dev.chorus.privacy.archfixture;

import java.net.http.HttpClient;

/** Test-only fixture for ArchitectureRulesCanFailTest: it breaks an architecture rule on purpose. */
public class PrivacyUsesHttpClient {
    static HttpClient client() {
        return HttpClient.newHttpClient();
    }
}
