package dev.chorus.learning.optim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OptimizerSpecTest {

    @Test
    void plainNamesTakeTheDefaults() {
        assertThat(OptimizerSpec.parse("sgd").create()).isInstanceOfSatisfying(Sgd.class, sgd -> {
            assertThat(sgd.learningRate()).isEqualTo(Sgd.DEFAULT_LEARNING_RATE);
            assertThat(sgd.momentum()).isZero();
            assertThat(sgd.nesterov()).isFalse();
        });
        assertThat(OptimizerSpec.parse(" ADAM ").create()).isInstanceOfSatisfying(Adam.class, adam -> {
            assertThat(adam.learningRate()).isEqualTo(Adam.DEFAULT_LEARNING_RATE);
            assertThat(adam.beta2()).isEqualTo(Adam.DEFAULT_BETA2);
        });
    }

    @Test
    void optionsOverrideTheDefaults() {
        Sgd sgd = (Sgd) OptimizerSpec.parse("sgd:lr=0.05,momentum=0.9,nesterov=true,weight_decay=1e-4")
                .create();
        assertThat(sgd.learningRate()).isEqualTo(0.05f);
        assertThat(sgd.momentum()).isEqualTo(0.9f);
        assertThat(sgd.nesterov()).isTrue();
        assertThat(sgd.weightDecay()).isEqualTo(1e-4f);
        Adam adam =
                (Adam) OptimizerSpec.parse("adam:lr=0.001, beta1=0.8,eps=1e-6").create();
        assertThat(adam.beta1()).isEqualTo(0.8f);
        assertThat(adam.epsilon()).isEqualTo(1e-6f);
    }

    @Test
    void eachCreateGivesAFreshOptimizer() {
        OptimizerSpec spec = OptimizerSpec.parse("adam:lr=0.01");
        assertThat(spec.create()).isNotSameAs(spec.create());
        assertThat(spec.toString()).isEqualTo("adam:lr=0.01");
        assertThat(OptimizerSpec.parse(spec.toString())).isEqualTo(spec);
    }

    @Test
    void badSpecsNameTheProblem() {
        assertThatThrownBy(() -> OptimizerSpec.parse("rmsprop"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown optimizer 'rmsprop'; expected sgd[:lr=..");
        assertThatThrownBy(() -> OptimizerSpec.parse("sgd:beta1=0.9"))
                .hasMessage("unknown sgd option 'beta1'; expected lr, momentum, weight_decay, nesterov");
        assertThatThrownBy(() -> OptimizerSpec.parse("adam:lr=fast"))
                .hasMessage("adam option lr='fast' is not a finite number");
        assertThatThrownBy(() -> OptimizerSpec.parse("sgd:lr"))
                .hasMessage("optimizer option 'lr' in 'sgd:lr' is not key=value");
        assertThatThrownBy(() -> OptimizerSpec.parse("sgd:lr=0.1,lr=0.2"))
                .hasMessage("optimizer option 'lr' given twice in 'sgd:lr=0.1,lr=0.2'");
        assertThatThrownBy(() -> OptimizerSpec.parse("sgd:nesterov=yes"))
                .hasMessage("sgd option nesterov='yes' is not true or false");
        assertThatThrownBy(() -> OptimizerSpec.parse("sgd:nesterov=true"))
                .hasMessage("sgd nesterov=true needs momentum > 0");
        assertThatThrownBy(() -> OptimizerSpec.parse("sgd:lr=-0.1"))
                .hasMessage("learning rate must be a finite number > 0, got -0.1");
        assertThatThrownBy(() -> OptimizerSpec.parse(" ")).hasMessageStartingWith("missing optimizer spec");
    }
}
