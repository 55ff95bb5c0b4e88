/**
 * ml-random-forest 2.1.0 ships types/types.d.ts that do not compile (a class extending an
 * interface, undeclared tree classes, `import Matrix` from a package whose default export is
 * not the class). This ambient declaration describes the part beebot uses (src/watch/model.ts)
 * and takes precedence over the shipped file. The package's main is CommonJS with
 * `exports.RandomForestRegression = …`, which Node's ESM loader exposes as a named export.
 */
declare module 'ml-random-forest' {
  interface RandomForestRegressionOptions {
    /** features per tree: a share in (0, 1] or a count (default 1.0: all) */
    maxFeatures?: number;
    /** draw features with replacement (default false) */
    replacement?: boolean;
    /** trees (default 50) */
    nEstimators?: number;
    /** 32-bit integer seeding the sample and feature draws (default 42): same seed, same forest */
    seed?: number;
    /** bootstrap the rows of each tree (default true) */
    useSampleBagging?: boolean;
    /** skip the out-of-bag predictions (default false) */
    noOOB?: boolean;
    /** ml-cart's: minNumSamples (default 3), maxDepth (default Infinity), gainThreshold (default 0) */
    treeOptions?: { minNumSamples?: number; maxDepth?: number; gainThreshold?: number };
    selectionMethod?: 'mean' | 'median';
  }
  export class RandomForestRegression {
    constructor(options?: RandomForestRegressionOptions);
    train(trainingSet: number[][], trainingValues: number[]): void;
    predict(toPredict: number[][]): number[];
  }
}
