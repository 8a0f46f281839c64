import{e as a}from"./chunks/chunk-YQA7K6AF.js";a();
